// Package document is crd-lsp's exact model of a YAML file: its text, its
// YAML documents as yaml.v3 node trees, and the positions that connect the
// two. It knows nothing of LSP, schemas or Kubernetes.
//
// # The model
//
// Parse turns one version of a file's text into a File. The text is split
// into documents at "---" and "..." marker lines by this package, not by
// yaml.v3, and every document is parsed on its own, so a syntax error in
// one document leaves the others with usable trees. A Doc has its text
// Span, its content node Root (nil when the document is empty or does not
// parse) and its Errors: at most one syntax error (yaml.v3 stops at the
// first) plus any duplicate mapping keys, each with a Span and a message
// without yaml.v3's "yaml: line N:" prefix.
//
// Object gives a document's value as kubectl would send it to the API
// server: decoded by sigs.k8s.io/yaml, that is with YAML 1.1 rules, so an
// unquoted yes/no/on/off is a boolean there although yaml.v3 (YAML 1.2)
// leaves it a string in the node tree. Code that reasons about values must
// use Object; code that reasons about text uses the nodes.
//
// # Invariants
//
//   - Parsing never fails and never panics; problems are positioned Errors.
//   - A File is immutable: one per version of a text, parsed once. Nothing
//     may modify its Text or its nodes. (yaml.v3 nodes are mutable
//     structs; treat them as read-only.)
//   - The Docs' Spans tile the text: in order, without gaps or overlaps.
//   - Positions are byte offsets (Span) everywhere. Only Mapper converts
//     them to and from line/character Positions, in UTF-16 (LSP's default),
//     UTF-8 or UTF-32 code units; it is the only code that knows UTF-16.
//   - At and Spans round-trip: for every key and value Walk reaches,
//     Spans(path) covers exactly its text, and At at any offset in that
//     text returns the same path (OnKey on the key). This is tested over
//     every YAML file of the shared corpus.
//
// # Positions
//
// yaml.v3 gives each node a 1-based line and a 1-based column counted in
// code points (runes), relative to the text it was given. Parse makes the
// lines absolute (Node.Line is the line in the File) and NodeSpan converts
// line and column to byte offsets, then finds where the node's text ends:
// quotes and escapes, folded plain scalars, block scalars, flow brackets,
// aliases. Lines end at "\n", "\r\n" or a lone "\r", as in both YAML and
// LSP. A byte-order mark is skipped: not seen by yaml.v3, not counted by
// Mapper (it is invisible in editors), but kept in Text so that offsets
// index the bytes as read.
//
// Values reached through an alias or a merge key ("<<") are positioned
// where they are written, under their anchor: Lookup("ref.x") with
// "ref: *base" returns base's x, and Spans points at its text. A value that
// is itself an alias has the span of "*name".
//
// yaml.v3 reports a syntax error with a line only, often the line where the
// enclosing construct began. The offending line is found by re-parsing
// prefixes of the document (the shortest one that fails the same way), so
// the Error lands on the line the user would recognise, from its first
// non-blank character, or from the bad character itself for scanner
// errors. This costs about log2(lines) parses, so it is done for documents
// up to 1 MB; larger ones keep yaml.v3's line.
//
// # Paths
//
// Paths are fieldpath.Paths (spec.resources[2].patches[0].toFieldPath).
// At maps an offset to the deepest path there; Lookup, Spans and Nearest
// map a path back to nodes and spans; Nearest returns the longest existing
// prefix, so that a problem at a path that is not written (a missing
// required field) can still be shown somewhere.
package document
