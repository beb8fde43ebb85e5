// This file defines $/cancelRequest handling and the mapping of parameter
// decoding failures to InvalidParams.

package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// cancellation gives every request a context that $/cancelRequest cancels.
// Unlike protocol.CancelHandler, whose error for an id it cannot read ends
// the connection (jsonrpc2 treats a failing notification as fatal), a
// cancel whose id is null, a fraction, a bool, an object, out of int64
// range, or missing is logged and ignored: there is nothing to cancel.
func (s *server) cancellation(next jsonrpc2.Handler) jsonrpc2.Handler {
	h, cancel := jsonrpc2.CancelHandler(next)
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() != protocol.MethodCancelRequest {
			return h(ctx, req)
		}
		id, why := cancelID(req.Params())
		if why != "" {
			s.log.Warn("ignoring $/cancelRequest", "reason", why, "params", clip(req.Params()))
		} else {
			cancel(id)
		}
		if req.IsCall() {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "crd-lsp: $/cancelRequest is a notification, not a request")
		}
		return nil, nil
	}
}

// cancelID reads CancelParams.id: an integer that fits int64, or a string.
// why says what is wrong otherwise.
func cancelID(params []byte) (jsonrpc2.ID, string) {
	params = bytes.TrimSpace(params)
	if len(params) == 0 || string(params) == "null" {
		return jsonrpc2.ID{}, "no params"
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(params, &p); err != nil {
		return jsonrpc2.ID{}, "params are not an object"
	}
	raw, ok := p["id"]
	if !ok {
		return jsonrpc2.ID{}, "params have no id"
	}
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc2.ID{}, "id is not a valid string"
		}
		return jsonrpc2.NewStringID(s), ""
	case len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9'):
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return jsonrpc2.ID{}, fmt.Sprintf("id %s is not an integer in int64 range", clip(raw))
		}
		return jsonrpc2.NewNumberID(n), ""
	}
	return jsonrpc2.ID{}, fmt.Sprintf("id %s is neither a number nor a string", clip(raw))
}

// invalidParams turns the parse error protocol's dispatcher returns for
// params it cannot decode into the InvalidParams (-32602) JSON-RPC
// prescribes: the message itself was valid JSON (the stream checked), only
// its params do not fit the method.
func invalidParams(method string, err error) error {
	if err == nil || !errors.Is(err, jsonrpc2.ErrParse) {
		return err
	}
	msg := strings.TrimPrefix(err.Error(), jsonrpc2.ErrParse.Error()+": ")
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "crd-lsp: invalid params for %s: %s", method, msg)
}
