package pipeline

import (
	"fmt"
	"slices"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/recursion"
)

// checkDeployment checks a deployment's buckets: each a bucket of m
// ([Rows]), no two in one slot of the bucket tree, the run's bucket rows
// among them.
func checkDeployment(m *model.Model, buckets []int, rows int, batch bool) error {
	var seen [recursion.BucketSlots]bool
	for _, b := range buckets {
		check := func() error { _, err := Rows(m, 1, 1, b); return err }
		if batch {
			check = func() error { _, err := BatchRows(1, b); return err }
		}
		if err := check(); err != nil {
			return fmt.Errorf("pipeline: the deployment's bucket of %d rows: %w", b, err)
		}
		slot, err := recursion.BucketSlot(b)
		if err != nil {
			return err
		}
		if seen[slot] {
			return fmt.Errorf("pipeline: the deployment %v lists two buckets of slot %d", buckets, slot)
		}
		seen[slot] = true
	}
	if !slices.Contains(buckets, rows) {
		return fmt.Errorf("pipeline: the run's bucket of %d rows is not one of the deployment's %v", rows, buckets)
	}
	return nil
}

// deploy fills in the deployment of the model's buckets (opts.Buckets,
// or the keys' bucket alone) and the final model id: the leaf of the
// keys' aggregator from its key, the others' from their keys, set up or
// loaded (verifying keys only). A mixed deployment (opts.Mix) has two
// aggregators per bucket: a lone turn's and a mixed list's.
func (r *runner) deploy(opts *AggregatedOptions, k *AggregatedKeys) error {
	m := opts.Model
	var err error
	if k.Slot, err = recursion.Slot(k.Catalog.layout(k.Shapes), k.Rows); err != nil {
		return err
	}
	buckets := opts.Buckets
	if len(buckets) == 0 {
		buckets = []int{k.Rows}
	}
	if err := checkDeployment(m, buckets, k.Rows, opts.Slots > 0); err != nil {
		return err
	}
	k.Deployment = &recursion.Deployment{ModelDigest: r.modelID()}
	kinds := []bool{opts.MixedList}
	if opts.Mix != nil && !opts.alone {
		kinds = []bool{false, true}
	}
	for _, b := range buckets {
		for _, mixed := range kinds {
			if b == k.Rows && mixed == opts.MixedList {
				if k.Deployment.Leaves[k.Slot], err = recursion.BucketLeaf(k.Slot, k.Aggregator.VK, k.ModelID); err != nil {
					return err
				}
				continue
			}
			// The other aggregator's keys, as a deployment of its own:
			// its one leaf is the one it has in this deployment.
			what := fmt.Sprintf("the bucket of %d rows", b)
			if mixed {
				what = fmt.Sprintf("the mixed lists in the bucket of %d rows", b)
			} else if opts.Mix != nil {
				what = fmt.Sprintf("the lone turns in the bucket of %d rows", b)
			}
			r.logf("keys of %s (a leaf of the model id) …", what)
			sub := *opts
			sub.Bucket, sub.Buckets, sub.Wrap, sub.MixedList, sub.alone = b, nil, false, mixed, true
			scope := r.scope
			r.scope = what
			keys, err := r.setupAggregated(&sub, 1, 1)
			r.scope = scope
			if err != nil {
				return fmt.Errorf("pipeline: %s: %w", what, err)
			}
			if k.Deployment.Leaves[keys.Slot] != nil {
				return fmt.Errorf("pipeline: %s: slot %d taken twice", what, keys.Slot)
			}
			k.Deployment.Leaves[keys.Slot] = keys.Deployment.Leaves[keys.Slot]
		}
	}
	k.FinalModelID, err = k.Deployment.FinalModelID()
	return err
}

// pass returns the keys of the segment circuits of the aggregator's pass
// p: a shallow copy of k whose Segment, Shapes and Tables are that pass's
// segment circuits', for proving its segments.
func (k *AggregatedKeys) pass(p int) *AggregatedKeys {
	part := *k
	indices := k.Catalog.passes[p].segments
	part.Segment, part.Shapes, part.Tables = nil, nil, nil
	for _, i := range indices {
		part.Segment = append(part.Segment, k.Segment[i])
		part.Shapes = append(part.Shapes, k.Shapes[i])
		part.Tables = append(part.Tables, k.Tables[i])
	}
	return &part
}
