//go:build unix

package safefile

import "syscall"

// nonblock keeps open from blocking on a FIFO swapped in after Check.
const nonblock = syscall.O_NONBLOCK
