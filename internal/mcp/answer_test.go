package mcp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// answerID finds the id of the answers the SDK writes (encoded by the
// SDK's own encoder), as the filter keys the calls it passed, and nothing
// in requests and notifications; the gate frees a call's place by it.
func TestAnswerID(t *testing.T) {
	id := func(v any) jsonrpc.ID {
		i, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	big := json.RawMessage(`{"content":[{"type":"text","text":"` + strings.Repeat("y", 1<<20) + `"}]}`)
	for _, c := range []struct {
		name string
		msg  jsonrpc.Message
		want any // nil: not an answer
	}{
		{"result, number id", &jsonrpc.Response{ID: id(float64(7)), Result: big}, int64(7)},
		{"error, string id", &jsonrpc.Response{ID: id("seven"), Error: errors.New("boom")}, "seven"},
		{"call", &jsonrpc.Request{ID: id(float64(7)), Method: "roots/list"}, nil},
		{"notification", &jsonrpc.Request{Method: "notifications/message", Params: json.RawMessage(`{"level":"info"}`)}, nil},
		{"answer without id", &jsonrpc.Response{Error: errors.New("boom")}, nil},
	} {
		b, err := jsonrpc.EncodeMessage(c.msg)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := answerID(append(b, '\n'))
		if c.want == nil {
			if ok {
				t.Errorf("%s: answer %v", c.name, got)
			}
			continue
		}
		if !ok || got != c.want {
			t.Errorf("%s: %v %v, want %v", c.name, got, ok, c.want)
		}
		// The filter keys a call by the id the SDK decodes from it.
		call, err := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":` + string(mustJSON(t, c.want)) + `,"method":"tools/list"}`))
		if err != nil {
			t.Fatal(err)
		}
		if k := call.(*jsonrpc.Request).ID.Raw(); k != got {
			t.Errorf("%s: the call is keyed %v (%T), its answer %v (%T)", c.name, k, k, got, got)
		}
	}
	// An id of 1.5 is 1 to the SDK, in the call and in its answer.
	if got, ok := answerID([]byte(`{"jsonrpc":"2.0","id":1.5,"result":{}}`)); !ok || got != int64(1) {
		t.Errorf("id 1.5: %v %v", got, ok)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
