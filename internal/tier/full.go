//go:build full

package tier

// Full is true in the full tier (the build tag full).
const Full = true
