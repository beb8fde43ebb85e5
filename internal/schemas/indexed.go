// This file indexes files ahead of time (Index, IndexInput), so that adding
// them to a Store is cheap.

package schemas

// Indexed is one file indexed ahead of time (Index), for a FileInput: the
// O(size) part of WithFiles then runs where the caller chooses (off the
// paths that must answer quickly), and adding the file to a store costs
// only the insertion of its GVKs.
type Indexed struct {
	src     Source
	path    string
	found   bool // the file has definitions
	schemas []*Schema
}

// Index indexes content as WithFile would for src and path. content is
// not copied (unlike WithFile): the caller must not change it afterwards.
func Index(src Source, path string, content []byte) *Indexed {
	return IndexInput(FileInput{Source: src, Path: path, Content: content})
}

// IndexInput indexes one input as WithFiles would. Without in.Open, the
// definitions' text (sub-slices of in.Content, not copied) is kept; with
// it, only the index is, and in.Content may be dropped or reused.
func IndexInput(in FileInput) *Indexed {
	if in.Indexed != nil {
		return in.Indexed
	}
	ix := &Indexed{src: in.Source, path: in.Path}
	if len(in.Content) == 0 {
		return ix
	}
	for _, d := range scanDefinitions(in.Content) {
		ix.found = true
		ix.schemas = append(ix.schemas, indexedSchemas(d, in.Source, in.Path, in.Open)...)
	}
	return ix
}

// Len is the number of schemas (GVKs) the file defines.
func (ix *Indexed) Len() int { return len(ix.schemas) }

// setIndexed is setFile for an indexed file.
func (s *Store) setIndexed(ix *Indexed) {
	s.removeFile(ix.path)
	if ix.found {
		s.addEntry(&fileEntry{path: ix.path, src: ix.src, schemas: ix.schemas})
	}
}
