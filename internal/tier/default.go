//go:build !full

package tier

// Full is false in the default tier (no build tag full).
const Full = false
