//go:build !race

package supervise

// raceBuild: see race_on.go.
const raceBuild = false
