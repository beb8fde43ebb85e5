// Package loader is the one workspace loader: every front end (the
// language server, check, render) assembles the World its analysis reads
// with it: the schema stores (built-ins of each Crossplane version in use,
// workspace and --schemas files, cached packages), package metadata and
// the outcome of each dependency, the objects of the workspace's files by
// kind and the example composites among them. World.Env is the one
// builder of analysis.Env.
//
// Invariants: a World is immutable (With* methods return a new one) and
// reading it never touches the disk, but for schema files: Load indexes
// them as it reads them and keeps no text (schemas.FileInput.Open), so a
// schema's first use reads its file again through internal/workspace;
// Load reads the disk only through internal/workspace and the package
// cache only through internal/packages (Cached: never the network).
package loader
