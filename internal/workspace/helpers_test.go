package workspace

import "github.com/crd-lsp/crd-lsp/internal/schemas"

func gvk(g, v, k string) schemas.GVK { return schemas.GVK{Group: g, Version: v, Kind: k} }
