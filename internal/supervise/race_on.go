//go:build race

package supervise

// raceBuild: the race detector's shadow memory counts in the data segment,
// so a worker under RLIMIT_DATA fails its allocations (make race): a race
// build sets no ceiling.
const raceBuild = true
