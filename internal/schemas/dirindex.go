package schemas

import (
	"encoding/json"
	"fmt"
	"hash/crc32"
	"sync"
)

// A persistent index of schema folders (issue 24): what IndexInput learns
// of a file read from disk, kept across processes so that a later run
// does not read and scan an unchanged file again. The caller (the loader)
// decides when an entry is still valid (path, size and modification
// time); this file turns an Indexed into bytes and back. A definition
// restored this way carries its length and CRC-32C instead of a content
// key: on first use its file is read, the definition's bytes checked
// against them (a file changed behind the index gives the usual "changed
// on disk" error), and the key computed then.

// persistedDef is a definition's index fields, as stored.
type persistedDef struct {
	Kind        defKind         `json:"k"`
	APIVersion  string          `json:"a"`
	DocIndex    int             `json:"d"`
	Off         int             `json:"o"`
	Len         int             `json:"n"`
	Sum         uint32          `json:"s"`
	Name        string          `json:"m"`
	Group       string          `json:"g"`
	KindName    string          `json:"K"`
	Plural      string          `json:"p"`
	Scope       string          `json:"S"`
	Versions    []persistedVers `json:"v"`
	ClaimKind   string          `json:"ck,omitempty"`
	ClaimPlural string          `json:"cp,omitempty"`
	Description string          `json:"D,omitempty"`
}

type persistedVers struct {
	Name   string `json:"n"`
	Served bool   `json:"s"`
}

// IndexPersisted is IndexInput for a file given with Open, also returning
// the index in a form DecodeIndexed restores (nil when in.Open is nil).
func IndexPersisted(in FileInput) (*Indexed, []byte) {
	if in.Open == nil || len(in.Content) == 0 {
		return IndexInput(in), nil
	}
	ix := &Indexed{src: in.Source, path: in.Path}
	var defs []persistedDef
	for _, d := range scanDefinitions(in.Content) {
		ix.found = true
		ix.schemas = append(ix.schemas, indexedSchemas(d, in.Source, in.Path, in.Open)...)
		pd := persistedDef{Kind: d.kind, APIVersion: d.apiVersion, DocIndex: d.docIndex, Off: d.off, Len: len(d.text),
			Sum: crc32.Checksum(d.text, castagnoli), Name: d.name, Group: d.group, KindName: d.kindName, Plural: d.plural,
			Scope: d.scope, ClaimKind: d.claimKind, ClaimPlural: d.claimPlural, Description: d.description}
		for _, v := range d.versions {
			pd.Versions = append(pd.Versions, persistedVers{v.name, v.served})
		}
		defs = append(defs, pd)
	}
	data, err := json.Marshal(defs)
	if err != nil {
		return ix, nil
	}
	return ix, data
}

// DecodeIndexed restores what IndexPersisted returned for the file at
// path, read again through open when a schema is first used.
func DecodeIndexed(src Source, path string, data []byte, open func() ([]byte, error)) (*Indexed, error) {
	if open == nil {
		return nil, fmt.Errorf("no way to read %s", path)
	}
	var defs []persistedDef
	if err := json.Unmarshal(data, &defs); err != nil {
		return nil, err
	}
	ix := &Indexed{src: src, path: path}
	for _, pd := range defs {
		if pd.Off < 0 || pd.Len < 0 {
			return nil, fmt.Errorf("a bad index entry for %s", path)
		}
		d := &definition{kind: pd.Kind, apiVersion: pd.APIVersion, docIndex: pd.DocIndex, off: pd.Off, name: pd.Name, group: pd.Group,
			kindName: pd.KindName, plural: pd.Plural, scope: pd.Scope, claimKind: pd.ClaimKind, claimPlural: pd.ClaimPlural, description: pd.Description}
		for _, v := range pd.Versions {
			d.versions = append(d.versions, scannedVersion{v.Name, v.Served})
		}
		ix.found = true
		lazy := &lazyKey{n: pd.Len, sum: pd.Sum}
		for _, sc := range indexedSchemas(d, src, path, open) {
			if sc.def.lazy == nil {
				sc.def.lazy = lazy
			}
			ix.schemas = append(ix.schemas, sc)
		}
	}
	return ix, nil
}

// lazyKey is the content key of a definition restored from a persisted
// index: known after its file is read and checked.
type lazyKey struct {
	n   int
	sum uint32

	mu   sync.Mutex
	done bool
	key  docKey
}

// resolve reads r's file, checks the definition against its length and
// checksum, and returns its content key; a failure is returned (and
// retried next time).
func (r *defRef) resolve() (docKey, error) {
	l := r.lazy
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return l.key, nil
	}
	content, err := r.open()
	if err != nil {
		return docKey{}, fmt.Errorf("reading %s again: %w", r.path, err)
	}
	if r.off+l.n > len(content) || crc32.Checksum(content[r.off:r.off+l.n], castagnoli) != l.sum {
		return docKey{}, fmt.Errorf("%s changed on disk since it was indexed", r.path)
	}
	l.key, l.done = keyOf(content[r.off:r.off+l.n]), true
	return l.key, nil
}
