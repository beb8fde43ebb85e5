package xpkgtest

import (
	"net/http"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// TestRegistryCleanupCutsHangingRequests: a registry whose faulted
// request hangs, with a client that never gives up, still shuts down when
// the test ends (httptest.Server.Close alone waits for every request in
// flight: the test would hang until go test's timeout).
func TestRegistryCleanupCutsHangingRequests(t *testing.T) {
	faults := NewFaults()
	faults.Set("tags", Hang())
	answered := make(chan error, 1)
	ended := make(chan bool, 1)
	go func() {
		ended <- t.Run("registry", func(t *testing.T) {
			host := MemRegistry(t, faults.Wrap)
			go func() {
				resp, err := (&http.Client{}).Get("http://" + host + "/v2/x/p/tags/list") // no timeout: never gives up
				if err == nil {
					resp.Body.Close()
				}
				answered <- err
			}()
			testfixtures.Await(t, faults.Hits(), "the tags request to reach its fault")
		})
	}()
	if !testfixtures.Await(t, ended, "the registry's cleanup to return while a request hangs") {
		t.Fatal("the registry subtest failed")
	}
	if err := testfixtures.Await(t, answered, "the hanging request to end"); err == nil {
		t.Error("the hanging request got an answer; want its connection cut")
	}
}
