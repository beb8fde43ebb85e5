package referee

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/referee/apiserver"
)

// serverVersion is the apiextensions-apiserver version of go.mod: the
// referee must judge with the code crd-lsp validates with.
const serverVersion = apiserver.Version

// apiServer is a running apiextensions-apiserver backed by its own etcd.
type apiServer struct {
	base   string
	client *http.Client
}

// startServer starts the API server (internal/referee/apiserver).
func startServer(t *testing.T) *apiServer {
	t.Helper()
	s := apiserver.Start(t)
	return &apiServer{base: s.Base, client: s.Client}
}

// status is the part of a metav1.Status the referee reads.
type status struct {
	Status  string `json:"status"`
	Code    int    `json:"code"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Details struct {
		Causes []struct {
			Type    string `json:"reason"`
			Message string `json:"message"`
			Field   string `json:"field"`
		} `json:"causes"`
	} `json:"details"`
}

// answer is the server's reply to one request.
type answer struct {
	code     int
	status   status
	warnings []string
	body     []byte
}

func (s *apiServer) do(ctx context.Context, method, path string, body []byte) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, bytes.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	a := answer{code: resp.StatusCode, body: b}
	if resp.StatusCode >= 300 {
		_ = json.Unmarshal(b, &a.status)
	}
	for _, w := range resp.Header.Values("Warning") {
		a.warnings = append(a.warnings, warningText(w))
	}
	return a, nil
}

// warningText is the text of an RFC 7234 warning header: 299 - "text".
func warningText(h string) string {
	h = strings.TrimPrefix(h, "299 - ")
	if len(h) >= 2 && h[0] == '"' {
		var b strings.Builder
		for i := 1; i < len(h); i++ {
			switch h[i] {
			case '\\':
				if i+1 < len(h) {
					i++
					b.WriteByte(h[i])
				}
			case '"':
				return b.String()
			default:
				b.WriteByte(h[i])
			}
		}
		return b.String()
	}
	return h
}
