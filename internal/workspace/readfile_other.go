//go:build !unix

package workspace

import "os"

const openFlags = os.O_RDONLY
