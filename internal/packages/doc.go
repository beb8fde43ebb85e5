// Package packages is crd-lsp's package-dependency layer: it reads
// Crossplane package metadata (crossplane.yaml), resolves the packages it
// depends on against OCI registries, pulls their xpkg images, and keeps
// them in a local, content-addressed cache shared between processes.
//
// It knows nothing about LSP, documents or schema stores: input is bytes
// and dependency lists, output is plain structs positioned by byte offsets.
//
// # Metadata
//
//	m := packages.ParseMeta(path, data)   // never fails; m.Problems lists what is wrong
//	m.Deps                                // one Dependency per spec.dependsOn entry
//
// (Finding crossplane.yaml files is internal/loader's job, as for every
// other file of a workspace.)
//
// meta.pkg.crossplane.io v1 (and v1beta1) Configuration, Provider and
// Function are read; v1alpha1 is accepted with a deprecation warning. Both
// dependency forms are understood: provider:/configuration:/function: plus
// version:, and package: plus apiVersion: and kind:. A Dependency carries
// the byte spans of the entry, its package value and its version value.
// Names without a registry host get the default registry
// (xpkg.crossplane.io, or Options.DefaultRegistry).
//
// Versions are semver constraints as Crossplane reads them
// (github.com/Masterminds/semver/v3: ">=v1.2.0", ">=v1.2.0 <v2.0.0",
// "~1.4", "^2", "v1.4.0"), or digests ("sha256:…", or "@sha256:…" on the
// package name). A constraint resolves to the highest tag that is a
// complete semantic version and satisfies it; like Crossplane, a tag such
// as "v1" is ignored.
//
// # Resolving
//
//	c, err := packages.New(packages.Options{})
//	res := c.Cached(m.Deps)          // instant, no network: what the cache knows
//	res = c.Resolve(ctx, m.Deps)     // registry: list tags, pull, update the cache
//
// Both return one Result per dependency (the first len(deps), in order),
// followed by the dependencies of Configurations, transitively (Root is the
// index of the direct dependency they descend from; Via the chain of
// Configurations). Constraints on one package are solved together: the
// highest version satisfying all of them is used; when none does, each
// involved Result gets a KindConflict error (and the first one's own choice
// is still returned, so its schemas stay usable).
//
// Errors are *Error values with a Kind: KindConstraint, KindNoMatch (with
// the newest tags), KindNotFound, KindUnauthorized, KindNetwork (naming
// the registry and what happened: no answer within Timeouts.Answer, a
// layer that stopped or was cut off at N of M bytes, the pull deadline, a
// tag list over Limits.MaxTags), KindConflict, KindInvalid (digest
// mismatch, truncated or unsafe layer, a blob the manifest names missing
// from the registry, no package.yaml), KindNotCached (Cached only) and
// KindCanceled. When the registry cannot be reached, refuses the
// credentials or serves a broken package (say, a corrupt newer tag), and
// the cache has a version satisfying the constraint, Resolve returns that
// one with a Stale error saying why the newer one was not used:
// IsWarning(err) is true.
//
// Each Package has a stable pseudo Path ("xpkg://<ref>/package.yaml", the
// same for every version), the whole package.yaml (YAML), its metadata
// document (Meta) and its CRDs, XRDs, MRDs and Compositions (Objects, each
// with the bytes of its document). File is the cached package.yaml on disk.
//
// # Pulling
//
// Images are pulled with oras-go: an image index resolves to its
// linux/amd64 image (or the only one); the base layer is the one annotated
// io.crossplane.xpkg: base, else the one the image config label
// io.crossplane.xpkg:<layer digest> = base names, else the last layer with
// a package.yaml. Only that layer is downloaded. It is streamed: package.yaml
// is read from the (gzipped) tar while the compressed bytes are hashed, and
// the result is used only if size and digest match the descriptor. Absolute
// paths, "..", symlinks and hard links, more than Limits.MaxEntries entries,
// and more than Limits.MaxPackageSize (200 MiB) of package.yaml or
// Limits.MaxLayerSize of layer are refused. So is a package.yaml with more
// than Limits.MaxDocuments (100,000) documents or a document over
// Limits.MaxDocumentSize (8 MiB; the API server stores no object above 3
// MiB), before any document is parsed: what parsing costs stays bounded.
// A Client keeps parsed packages for later calls up to
// Options.MemoryBudget (512 MiB) of package.yaml.
//
// Registries are given bounded time (Options.Timeouts): Connect (10s) to
// open a connection, Answer (30s) of silence before response headers or
// between reads of a body, and Pull (5m) for everything one package
// takes: tags, manifests and layer. A tag list may hold Limits.MaxTags
// (100,000) tags in at most 1,000 pages.
//
// Credentials come from the Docker config (DOCKER_CONFIG or
// ~/.docker/config.json, with credential helpers) through oras-go's
// credentials store; they are never logged. Registries in Options.Insecure
// are spoken to over plain HTTP, all others over HTTPS.
//
// # Cache
//
// Under Options.CacheDir (default os.UserCacheDir()/crd-lsp/packages):
// blobs/sha256/<hex> holds each package.yaml under its own digest, and
// index.json maps "package constraint" to the resolved version, manifest
// digest and when it was last checked, and each manifest digest to its
// package.yaml. Files are written to a temporary file and renamed;
// index.json is re-read and rewritten under a file lock (flock; none on
// Windows), so processes share the cache. A blob is checked against its
// digest when read from disk: a corrupt or truncated one is deleted and
// fetched again, never served.
//
// Progress (Options.Progress) reports messages such as "Pulling
// xpkg.crossplane.io/crossplane-contrib/provider-kubernetes:v1.2.1 (3/7)";
// the context of Resolve is honoured by every network call.
package packages
