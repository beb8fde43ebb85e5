//go:build !unix

// This file holds ReadFile's open flags where there is no unix.

package workspace

import "os"

const openFlags = os.O_RDONLY
