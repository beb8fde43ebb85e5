package analysis

import (
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// TestClusterSourceText: hover says which cluster a schema came from and
// how long ago it was read.
func TestClusterSourceText(t *testing.T) {
	read := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	src := schemas.Source{Kind: schemas.SourceCluster, Name: "dev-eu", Version: read.Format(time.RFC3339)}
	for _, c := range []struct {
		after time.Duration
		want  string
	}{
		{10 * time.Second, "cluster `dev-eu`, read just now"},
		{3*time.Minute + 20*time.Second, "cluster `dev-eu`, read 3 min ago"},
		{5 * time.Hour, "cluster `dev-eu`, read 5 h ago"},
		{72 * time.Hour, "cluster `dev-eu`, read 3 days ago"},
	} {
		if got := ClusterSourceText(src, read.Add(c.after)); got != c.want {
			t.Errorf("after %v: %q, want %q", c.after, got, c.want)
		}
	}
	src.Version = ""
	if got := ClusterSourceText(src, read); got != "cluster `dev-eu`" {
		t.Errorf("no read time: %q", got)
	}
}
