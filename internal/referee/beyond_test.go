package referee

// beyondServer lists the checks crd-lsp makes that the API server does
// not (the server is not wrong to accept what they report): an error with
// one of these codes is not a disagreement. Each is asserted by
// TestBeyondServer.
var beyondServer = map[string]string{}
