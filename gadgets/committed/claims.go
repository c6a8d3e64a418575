package committed

import (
	"github.com/consensys/gnark/frontend"

	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	native "github.com/veriformer/veriformer/inference/committed"
)

// blockPoint is native Layout.Point: the point of the stacked MLE at
// which its value is block b's MLE at local, the block's prefix bits
// (most significant first) followed by local.
func blockPoint(l *native.Layout, b int, local []frontend.Variable) []frontend.Variable {
	blk := &l.Blocks[b]
	leading := l.NbVars - blk.NbVars
	idx := blk.Offset >> blk.NbVars
	out := make([]frontend.Variable, 0, leading+len(local))
	for i := range leading {
		out = append(out, idx>>(leading-1-i)&1)
	}
	return append(out, local...)
}

// blockClaim is the claim that block b of the stacked MLE is value at
// local.
func blockClaim(l *native.Layout, b int, local []frontend.Variable, value frontend.Variable) gpcs.Claim {
	return gpcs.Claim{Commitment: native.TensorsCommitment, Point: blockPoint(l, b, local), Value: value}
}
