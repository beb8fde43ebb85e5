package lsp

import (
	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/loader"
)

// kubernetesNote tells the user, once per distinct note, why the built-in
// Kubernetes schemas are not the minor asked for: a crdLsp.kubernetesVersion
// that is not a built-in minor (the newest is used) or a cluster whose minor
// is not built in (the nearest is used). It is logged too.
func (s *server) kubernetesNote(w *loader.World) {
	choice := w.KubernetesChoice()
	s.mu.Lock()
	shown := s.kubeNote == choice.Note
	s.kubeNote = choice.Note
	s.mu.Unlock()
	if choice.Note == "" || shown {
		return
	}
	s.log.Warn("Kubernetes version", "note", choice.Note, "using", choice.Minor)
	t, prefix := protocol.MessageTypeInfo, "crd-lsp: "
	if choice.Invalid {
		t, prefix = protocol.MessageTypeWarning, "crd-lsp: crdLsp.kubernetesVersion: "
	}
	s.showMessage(t, prefix+choice.Note)
}
