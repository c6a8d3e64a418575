// Package safetensors reads and writes the safetensors format, the plain
// tensor container used by Hugging Face model repositories.
//
// # Format
//
// A file is three consecutive parts:
//
//	┌──────────────┬──────────────────────┬───────────────────────────┐
//	│ N (8 bytes)  │ header (N bytes)     │ buffer (all other bytes)  │
//	│ uint64, LE   │ UTF-8 JSON object    │ raw tensor data           │
//	└──────────────┴──────────────────────┴───────────────────────────┘
//
// The header maps each tensor name to its description, and may hold one
// reserved entry "__metadata__" whose value is an object of strings:
//
//	{"__metadata__": {"format": "pt"},
//	 "wte": {"dtype": "F32", "shape": [50257, 768], "data_offsets": [0, 154389504]}}
//
// data_offsets = [b, e] are byte offsets into the buffer (not the file), with
// the half-open range [b, e). Elements are little-endian and row-major: for
// shape (d₁, …, d_k) the element at (i₁, …, i_k) is number
// ∑ⱼ iⱼ · ∏_{l>j} d_l. An empty shape is a scalar with one element; a zero
// dimension makes an empty tensor with b = e.
//
// # Validation
//
// [Parse] treats its input as untrusted and returns an error, never a panic,
// when any of these fails:
//
//   - 8 ≤ len(file), N ≤ [MaxHeaderSize] and N ≤ len(file) − 8, checked
//     before anything is allocated from the header;
//   - the header is valid UTF-8 and one JSON object, optionally padded with
//     whitespace; no object in it repeats a key; a tensor entry has exactly
//     dtype, shape and data_offsets;
//   - the dtype is one of F64, F32, F16, BF16, I64, I32, I16, I8, U64, U32,
//     U16, U8, BOOL;
//   - every dimension is a non-negative integer and ∏ dᵢ · size(dtype) fits
//     in an int (multiplication is overflow-checked) and equals e − b;
//   - sorted by b, the ranges tile the buffer: the first starts at 0, each
//     starts where the previous ends, the last ends at len(buffer). So ranges
//     neither overlap nor leave gaps, and no byte is unaccounted for.
//
// Work is proportional to the input length, so a hostile header cannot make
// the reader allocate more than a small multiple of the file.
//
// # Conversion
//
// [Tensor.Float64s] converts exactly: F16 (binary16, 5-bit exponent with
// bias 15) through [HalfToFloat64], BF16 (the upper 16 bits of a binary32)
// through [BFloat16ToFloat64], F32 by widening, and integers directly. A
// 64-bit integer with no exact float64 (|v| > 2⁵³ and not a multiple of the
// spacing there) is an error, as is a BOOL byte other than 0 or 1.
//
// # Writing
//
// [Write] lays tensors out in name order with no padding between them and
// pads the header with spaces to a multiple of 8 bytes, so the buffer starts
// 8-byte aligned as in files written by the reference implementation. It
// validates everything first and writes nothing for invalid input. Any file
// [Parse] accepts re-encodes with [Write] to a file that parses to the same
// tensors and metadata; the fuzz test FuzzParse checks this.
//
// # Usage
//
//	f, err := safetensors.ReadFile("model.safetensors")
//	if err != nil { … }
//	w, ok := f.Tensor("h.0.attn.c_attn.weight")
//	values, err := w.Float64s()
//
// The Data of parsed tensors aliases the bytes given to [Parse].
package safetensors
