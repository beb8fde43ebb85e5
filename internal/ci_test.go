package internal_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeRunsWhatCIRuns: README.md's test command (the line of its
// first sh block that runs go test) is exactly the command .ci/run ends
// with, so that what a newcomer runs is what CI runs, timeouts included.
func TestReadmeRunsWhatCIRuns(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile(filepath.Join("..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	var want string
	if _, block, ok := strings.Cut(string(readme), "```sh\n"); ok {
		block, _, _ = strings.Cut(block, "```")
		for _, l := range strings.Split(block, "\n") {
			if strings.Contains(l, "go test ") {
				want = l
				break
			}
		}
	}
	lines := strings.Split(strings.TrimSpace(string(ci)), "\n")
	if got := lines[len(lines)-1]; want == "" || got != want {
		t.Errorf(".ci/run ends with\n  %s\nREADME.md's test command is\n  %s", got, want)
	}
}
