// This file defines ReadFile, the one way a user's file is read: regular files
// only, size-capped, never blocking on a pipe.

package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// DefaultMaxFileSize is the size limit for files read from disk when
// nothing else says (the crdLsp.schemas.maxFileSize setting's default, and
// what crd-lsp check and render read).
const DefaultMaxFileSize = 10 << 20

// FileError says why ReadFile did not read a file it found.
type FileError struct {
	Path   string
	Reason string // "a named pipe, not a regular file", "12.3 MiB, over the 10 MiB limit"
	// TooLarge is true when the file is over the limit (the caller may
	// name the setting that sets it).
	TooLarge bool
}

func (e *FileError) Error() string { return e.Path + ": " + e.Reason }

// ReadFile reads a regular file of at most limit bytes (0: no limit). It
// never blocks on a named pipe or reads a device: the file is opened
// without waiting for a writer and checked on the open descriptor (so a
// link swapped meanwhile cannot slip through), and never more than limit
// bytes are read, even from a file that grows. Other failures are the
// os package's errors.
func ReadFile(path string, limit int64) ([]byte, error) {
	return readFile(path, limit, nil, false)
}

// readFile: regular says the caller's directory entry already shows a
// regular file (not a link), so the look before opening is skipped.
func readFile(path string, limit int64, buf []byte, regular bool) ([]byte, error) {
	// Refuse what is visibly not a file before opening: opening some
	// devices has effects of its own. (With regular, the directory entry
	// said so; a file swapped for something else since is caught on the
	// open descriptor below.)
	if !regular {
		info, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if !info.Mode().IsRegular() {
			return nil, &FileError{Path: path, Reason: notRegular(info.Mode())}
		}
	}
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &FileError{Path: path, Reason: notRegular(info.Mode())}
	}
	if limit > 0 && info.Size() > limit {
		return nil, tooLarge(path, info.Size(), limit)
	}
	// One buffer of the file's size (and a byte more, to see the end
	// without growing), never more than limit+1 bytes read.
	size := info.Size() + 1
	if size < 512 {
		size = 512
	}
	if limit > 0 && size > limit+1 {
		size = limit + 1
	}
	var b []byte
	if int64(cap(buf)) >= size {
		b = buf[:0]
	} else {
		b = make([]byte, 0, size)
	}
	for {
		// Past the limit whatever the buffer's room: a file that grew
		// while read can fill exactly limit+1 bytes of a buffer append
		// made larger, and a read into no room returns 0 bytes and no
		// error for ever.
		if limit > 0 && int64(len(b)) > limit {
			return nil, tooLarge(path, int64(len(b)), limit)
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // the file grew: let append pick the size
		}
		room := b[len(b):cap(b)]
		if limit > 0 && int64(len(b)+len(room)) > limit+1 {
			room = room[:limit+1-int64(len(b))]
		}
		n, err := f.Read(room)
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if limit > 0 && int64(len(b)) > limit {
		return nil, tooLarge(path, int64(len(b)), limit)
	}
	return b, nil
}

func tooLarge(path string, size, limit int64) *FileError {
	return &FileError{Path: path, TooLarge: true, Reason: fmt.Sprintf("%s, over the %s limit", Size(size), Size(limit))}
}

func notRegular(m fs.FileMode) string {
	kind := "not a regular file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe, " + kind
	case m&fs.ModeCharDevice != 0:
		kind = "a character device, " + kind
	case m&fs.ModeDevice != 0:
		kind = "a device, " + kind
	case m&fs.ModeSocket != 0:
		kind = "a socket, " + kind
	case m.IsDir():
		kind = "a folder, " + kind
	}
	return kind
}

// IsFileError reports whether err is a *FileError (a file skipped on
// purpose rather than one that could not be read).
func IsFileError(err error) (*FileError, bool) {
	var fe *FileError
	ok := errors.As(err, &fe)
	return fe, ok
}

// Size writes a byte count for messages: 8120 bytes, 15.5 KiB, 10 MiB.
func Size(n int64) string {
	switch {
	case n < 10<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return trimZero(float64(n)/(1<<10)) + " KiB"
	case n < 1<<30:
		return trimZero(float64(n)/(1<<20)) + " MiB"
	}
	return trimZero(float64(n)/(1<<30)) + " GiB"
}

func trimZero(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}
