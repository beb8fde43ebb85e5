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
	ix := &Indexed{src: src, path: path}
	for _, d := range scanDefinitions(content) {
		ix.found = true
		ix.schemas = append(ix.schemas, indexedSchemas(d, src, path)...)
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
