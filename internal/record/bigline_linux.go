package record

import "syscall"

// mapLine reserves size bytes of address space for assembling one long
// line: an anonymous private mapping without swap reservation, so a page
// is memory only once written, and the line grows in place, never copied.
// ok is false when the system refuses (an address-space limit, strict
// overcommit); the decoder then grows a buffer of its own.
func mapLine(size int) (mem []byte, ok bool) {
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_NORESERVE)
	return mem, err == nil
}

// giveBack returns the pages of mem (the start of a mapping) to the system
// at once; they read as zeros after.
func giveBack(mem []byte) { _ = syscall.Madvise(mem, syscall.MADV_DONTNEED) }

// unmapLine releases a mapping made by mapLine.
func unmapLine(mem []byte) { _ = syscall.Munmap(mem) }
