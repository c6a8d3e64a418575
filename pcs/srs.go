package pcs

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"os"
	"path/filepath"
	"strings"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/kzg"
	"github.com/veriformer/veriformer/internal/hugepage"
)

// SRS is a KZG structured reference string on BLS12-377: the G1 powers
// [τ⁰]₁, …, [τ^{Size−1}]₁ (the prover's part) and [1]₁, [τ]₁, [τ²]₁,
// [1]₂, [τ]₂, [τ²]₂, [τ³]₂ (the verifier's part). A table of 2ⁿ entries
// needs Size ≥ 2ⁿ.
type SRS struct {
	Pk kzg.ProvingKey
	Vk VerifyingKey
}

// MinSize is the smallest SRS: the verifier's check of [τ²]₂ and [τ³]₂
// reads [τ³]₁.
const MinSize = 4

// Size returns the number of G1 powers: the largest table that can be
// committed.
func (s *SRS) Size() int { return len(s.Pk.G1) }

// VerifyingKey returns the verifier's part: [1]₁, [τ]₁, [τ²]₁, the four
// G2 powers and the pairing lines of the check's G2 points.
func (s *SRS) VerifyingKey() *VerifyingKey { return &s.Vk }

// VerifyingKey is what the group part of the verifier needs: G1 = ([1]₁,
// [τ]₁, [τ²]₁), G2 = ([1]₂, [τ]₂, [τ²]₂, [τ³]₂), and Lines the
// Miller-loop lines of the pairing check's three fixed G2 points
// ([VerifyingKey.CheckG2]: [1]₂, [τ]₂ + [τ²]₂, [τ³]₂), so the check skips
// the G2 arithmetic. The opening's one quotient is checked against the
// cubic Z(τ) that vanishes on its three evaluation points, hence the
// powers up to τ³.
type VerifyingKey struct {
	G1    [3]bls12377.G1Affine
	G2    [4]bls12377.G2Affine
	Lines [3][2][len(bls12377.LoopCounter) - 1]bls12377.LineEvaluationAff
}

// CheckG2 returns the G2 points of the opening's pairing check
// ([GroupCheck]): [1]₂, [τ]₂ + [τ²]₂ and [τ³]₂.
func (vk *VerifyingKey) CheckG2() [3]bls12377.G2Affine {
	var mid bls12377.G2Affine
	mid.Add(&vk.G2[1], &vk.G2[2])
	return [3]bls12377.G2Affine{vk.G2[0], mid, vk.G2[3]}
}

// Hash returns the SHA-256 of the SRS's canonical encoding (the size, then
// every point uncompressed): the name under which it is cached and the value
// a deployment pins.
func (s *SRS) Hash() [32]byte {
	h := sha256.New()
	if err := s.writePayload(h); err != nil {
		panic(err) // a hash never fails to write
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// Check verifies that the G1 points are successive powers of the τ of
// [τ]₂: with random ρ, e(Σᵢ ρⁱ[τⁱ]₁, [τ]₂) = e(Σᵢ ρⁱ[τⁱ⁺¹]₁, [1]₂) over
// i < Size−1; that [τ²]₂ and [τ³]₂ are the powers of the same τ:
// e([τ²]₁ + ρ[τ³]₁, [1]₂) = e([1]₁, [τ²]₂)·e(ρ[1]₁, [τ³]₂); that [1]₁,
// [1]₂ are the standard generators, [τ]₂ is neither the identity nor
// [1]₂, and every point is in its subgroup. It costs two MSMs of Size−1
// full scalars and two multi-pairings.
func (s *SRS) Check() error {
	_, _, g1, g2 := bls12377.Generators()
	if len(s.Pk.G1) < MinSize {
		return fmt.Errorf("pcs: srs: %d G1 powers, need at least %d", len(s.Pk.G1), MinSize)
	}
	if !s.Pk.G1[0].Equal(&g1) || !s.Vk.G2[0].Equal(&g2) {
		return errors.New("pcs: srs: [1]₁ or [1]₂ is not the standard generator")
	}
	for k := range s.Vk.G1 {
		if !s.Vk.G1[k].Equal(&s.Pk.G1[k]) {
			return fmt.Errorf("pcs: srs: the verifying key's [τ^%d]₁ is not the prover's", k)
		}
	}
	if s.Vk.G2[1].IsInfinity() || s.Vk.G2[1].Equal(&g2) || !s.Vk.G2[1].IsInSubGroup() {
		return errors.New("pcs: srs: [τ]₂ is the identity, the generator, or outside G2")
	}
	if !s.Vk.G2[2].IsInSubGroup() || !s.Vk.G2[3].IsInSubGroup() {
		return errors.New("pcs: srs: [τ²]₂ or [τ³]₂ is outside G2")
	}
	if !bls12377.IsInSubGroupBatchG1(s.Pk.G1) {
		return errors.New("pcs: srs: a G1 power is not in G1")
	}
	n := len(s.Pk.G1) - 1
	rho := make([]fr.Element, n)
	var r fr.Element
	if _, err := r.SetRandom(); err != nil {
		return fmt.Errorf("pcs: srs: %w", err)
	}
	rho[0].SetOne()
	for i := 1; i < n; i++ {
		rho[i].Mul(&rho[i-1], &r)
	}
	var lo, hi bls12377.G1Affine
	if _, err := lo.MultiExp(s.Pk.G1[:n], rho, multiExpConfig); err != nil {
		return fmt.Errorf("pcs: srs: %w", err)
	}
	if _, err := hi.MultiExp(s.Pk.G1[1:], rho, multiExpConfig); err != nil {
		return fmt.Errorf("pcs: srs: %w", err)
	}
	hi.Neg(&hi)
	ok, err := bls12377.PairingCheck([]bls12377.G1Affine{lo, hi}, []bls12377.G2Affine{s.Vk.G2[1], s.Vk.G2[0]})
	if err != nil {
		return fmt.Errorf("pcs: srs: %w", err)
	}
	if !ok {
		return errors.New("pcs: srs: the G1 points are not the powers of the τ of [τ]₂")
	}
	var t, rg bls12377.G1Affine
	var rb big.Int
	r.BigInt(&rb)
	t.ScalarMultiplication(&s.Pk.G1[3], &rb)
	t.Add(&t, &s.Pk.G1[2])
	t.Neg(&t)
	rg.ScalarMultiplication(&g1, &rb)
	ok, err = bls12377.PairingCheck([]bls12377.G1Affine{t, g1, rg}, []bls12377.G2Affine{s.Vk.G2[0], s.Vk.G2[2], s.Vk.G2[3]})
	if err != nil {
		return fmt.Errorf("pcs: srs: %w", err)
	}
	if !ok {
		return errors.New("pcs: srs: [τ²]₂ and [τ³]₂ are not the powers of the τ of the G1 points")
	}
	return nil
}

// newSRS builds an SRS from its points ([τ]₂, [τ²]₂, [τ³]₂ in tauG2) and
// precomputes the pairing lines.
func newSRS(powers []bls12377.G1Affine, tauG2 [3]bls12377.G2Affine) *SRS {
	_, _, _, g2 := bls12377.Generators()
	s := &SRS{}
	s.Pk.G1 = powers
	s.Vk.G1 = [3]bls12377.G1Affine(powers[:3])
	s.Vk.G2 = [4]bls12377.G2Affine{g2, tauG2[0], tauG2[1], tauG2[2]}
	for i, q := range s.Vk.CheckG2() {
		s.Vk.Lines[i] = bls12377.PrecomputeLines(q)
	}
	return s
}

// NewDevelopmentSRS returns an SRS of size G1 powers for a τ drawn from
// crypto/rand and not kept by this package. DEVELOPMENT ONLY: whoever runs it
// could keep τ and forge openings; it warns so on logger (log.Default() if
// nil). Production SRSs come from the BLS12-377 phase-1 ceremony
// ([LoadCeremony]).
func NewDevelopmentSRS(size int, logger *log.Logger) (*SRS, error) {
	if size < MinSize {
		return nil, fmt.Errorf("pcs: development srs: size %d < %d", size, MinSize)
	}
	if logger == nil {
		logger = log.Default()
	}
	logger.Printf("pcs: WARNING: DEVELOPMENT ONLY: generating a KZG SRS of %d powers from a local random τ; "+
		"whoever ran this process could have kept τ and could forge every opening. "+
		"Use the BLS12-377 phase-1 ceremony output (pcs.LoadCeremony) in production.", size)
	tau, err := rand.Int(rand.Reader, fr.Modulus())
	if err != nil {
		return nil, fmt.Errorf("pcs: development srs: %w", err)
	}
	s, err := NewSRSOfTau(size, tau)
	tau.SetUint64(0)
	if err != nil {
		return nil, fmt.Errorf("pcs: development srs: %w", err)
	}
	return s, nil
}

// NewSRSOfTau returns the SRS of size G1 powers of the given τ (refused
// when τ ≡ 0 mod r, whose powers are the identity). Whoever
// knows τ can forge every opening: it serves [NewDevelopmentSRS] and test
// vectors whose τ is public, never a deployment.
func NewSRSOfTau(size int, tau *big.Int) (*SRS, error) {
	if size < MinSize {
		return nil, fmt.Errorf("pcs: srs: size %d < %d", size, MinSize)
	}
	var t fr.Element
	t.SetBigInt(tau)
	powers, err := g1Powers(size, &t)
	t.SetZero()
	if err != nil {
		return nil, fmt.Errorf("pcs: srs: %w", err)
	}
	_, _, _, g2 := bls12377.Generators()
	var tauG2 [3]bls12377.G2Affine
	power := new(big.Int).Mod(tau, fr.Modulus())
	for i := range tauG2 {
		tauG2[i].ScalarMultiplication(&g2, power)
		power.Mul(power, tau).Mod(power, fr.Modulus())
	}
	power.SetUint64(0)
	return newSRS(powers, tauG2), nil
}

// srsMagic starts every cached SRS file; srsDevelopmentMagic marks one
// made by [NewDevelopmentSRS].
const (
	srsMagic            = "veriformer/pcs/srs/v2\n"
	srsDevelopmentMagic = "veriformer/pcs/srs/v2/development\n"
	srsOldPrefix        = "veriformer/pcs/srs/v1"
)

// ErrOldCache is wrapped by the error of [ReadCache] on a file of an
// earlier format (v1 held [τ]₂ alone): [LoadOrCreateDevelopment] and
// [LoadCeremony] build the SRS again in its place.
var ErrOldCache = errors.New("pcs: srs cache of an earlier format")

// writePayload writes the canonical encoding hashed by [SRS.Hash]: the
// number of G1 powers (8 bytes, big-endian), the G1 powers, [τ]₂, [τ²]₂,
// [τ³]₂, uncompressed.
func (s *SRS) writePayload(w io.Writer) error {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(s.Pk.G1)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	for i := range s.Pk.G1 {
		b := s.Pk.G1[i].RawBytes()
		if _, err := w.Write(b[:]); err != nil {
			return err
		}
	}
	for i := 1; i < len(s.Vk.G2); i++ {
		b := s.Vk.G2[i].RawBytes()
		if _, err := w.Write(b[:]); err != nil {
			return err
		}
	}
	return nil
}

// WriteCache writes the SRS to path atomically: a header (whether it is a
// development SRS), the SHA-256 of the payload, then the payload of
// [SRS.Hash].
func (s *SRS) WriteCache(path string, development bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("pcs: srs cache: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("pcs: srs cache: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	magic := srsMagic
	if development {
		magic = srsDevelopmentMagic
	}
	hash := s.Hash()
	_, err = w.WriteString(magic)
	if err == nil {
		_, err = w.Write(hash[:])
	}
	if err == nil {
		err = s.writePayload(w)
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Close()
	} else {
		f.Close()
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("pcs: srs cache %s: %w", filepath.Base(path), err)
	}
	return nil
}

// ErrHashMismatch is wrapped by the errors of [ReadCache] when the stored
// points do not hash to the recorded or the expected value.
var ErrHashMismatch = errors.New("pcs: srs hash mismatch")

// ReadCache reads an SRS written by [SRS.WriteCache]. It recomputes the
// SHA-256 of the points read and refuses the file if it differs from the
// hash recorded in the file or, when expected is not nil, from *expected.
// Points are read without subgroup checks (the hash vouches for them). A
// development SRS is reported on logger (log.Default() if nil) as such.
func ReadCache(path string, expected *[32]byte, logger *log.Logger) (*SRS, error) {
	if logger == nil {
		logger = log.Default()
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("pcs: srs cache: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("pcs: srs cache: %w", err)
	}
	r := bufio.NewReaderSize(f, 1<<20)
	header, err := r.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("pcs: srs cache %s: header: %w", path, err)
	}
	switch header {
	case srsMagic:
	case srsDevelopmentMagic:
		logger.Printf("pcs: WARNING: DEVELOPMENT ONLY: %s holds a development SRS whose τ was not destroyed by a ceremony", path)
	default:
		if strings.HasPrefix(header, srsOldPrefix) {
			return nil, fmt.Errorf("%w: %s", ErrOldCache, path)
		}
		return nil, fmt.Errorf("pcs: srs cache %s: unknown header %q", path, header)
	}
	var recorded [32]byte
	if _, err := io.ReadFull(r, recorded[:]); err != nil {
		return nil, fmt.Errorf("pcs: srs cache %s: %w", path, err)
	}
	h := sha256.New()
	tee := io.TeeReader(r, h)
	var nb [8]byte
	if _, err := io.ReadFull(tee, nb[:]); err != nil {
		return nil, fmt.Errorf("pcs: srs cache %s: %w", path, err)
	}
	n := binary.BigEndian.Uint64(nb[:])
	const g1Size = bls12377.SizeOfG1AffineUncompressed
	if n < MinSize || n > uint64(info.Size())/g1Size {
		return nil, fmt.Errorf("pcs: srs cache %s: %d G1 points (at least %d) do not fit in %d bytes", path, n, MinSize, info.Size())
	}
	powers := hugepage.Make[bls12377.G1Affine](int(n)) // n is bounded by the file size above
	var buf [bls12377.SizeOfG2AffineUncompressed]byte
	for i := range powers {
		if _, err := io.ReadFull(tee, buf[:g1Size]); err != nil {
			return nil, fmt.Errorf("pcs: srs cache %s: G1 point %d: %w", path, i, err)
		}
		if err := setRawG1(&powers[i], buf[:g1Size]); err != nil {
			return nil, fmt.Errorf("pcs: srs cache %s: G1 point %d: %w", path, i, err)
		}
	}
	tauG2, err := readTauG2(tee, bls12377.SizeOfG2AffineUncompressed)
	if err != nil {
		return nil, fmt.Errorf("pcs: srs cache %s: %w", path, err)
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("pcs: srs cache %s: trailing bytes", path)
	}
	var got [32]byte
	h.Sum(got[:0])
	if got != recorded {
		return nil, fmt.Errorf("%w: %s hashes to %x, its header records %x", ErrHashMismatch, path, got, recorded)
	}
	if expected != nil && got != *expected {
		return nil, fmt.Errorf("%w: %s hashes to %x, expected %x", ErrHashMismatch, path, got, *expected)
	}
	return newSRS(powers, tauG2), nil
}

// LoadOrCreateDevelopment returns a development SRS of size powers cached in
// dir (as dev-<size>.srs), creating it with [NewDevelopmentSRS] when absent.
// Warns on logger either way.
func LoadOrCreateDevelopment(dir string, size int, logger *log.Logger) (*SRS, error) {
	path := filepath.Join(dir, fmt.Sprintf("dev-%d.srs", size))
	s, err := ReadCache(path, nil, logger)
	if err == nil {
		if s.Size() != size {
			return nil, fmt.Errorf("pcs: srs cache %s holds %d powers, want %d", path, s.Size(), size)
		}
		return s, nil
	}
	if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, ErrOldCache) {
		return nil, err
	}
	s, err = NewDevelopmentSRS(size, logger)
	if err != nil {
		return nil, err
	}
	if err := s.WriteCache(path, true); err != nil {
		return nil, err
	}
	return s, nil
}

// LoadCeremony returns an SRS of size G1 powers taken from a file holding
// gnark's BLS12-377 Groth16 phase-1 output (backend/groth16/bls12-377/
// mpcsetup.SrsCommons, as written by its WriteTo): its G1 τ-powers
// [τ⁰]₁, …, [τ^{2N−2}]₁ and its [τ]₂, [τ²]₂, [τ³]₂ form a KZG SRS of up to
// 2N−1 powers.
//
// The first load decodes and checks the points ([SRS.Check]) and caches the
// result in cacheDir under the SHA-256 of the ceremony file and the size;
// later loads read the cache and refuse it on a hash mismatch. An empty
// cacheDir disables the cache.
func LoadCeremony(path string, size int, cacheDir string) (*SRS, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("pcs: ceremony: %w", err)
	}
	defer f.Close()
	var cachePath string
	if cacheDir != "" {
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return nil, fmt.Errorf("pcs: ceremony %s: %w", path, err)
		}
		cachePath = filepath.Join(cacheDir, fmt.Sprintf("ceremony-%s-%d.srs", hex.EncodeToString(h.Sum(nil)), size))
		s, err := ReadCache(cachePath, nil, nil)
		if err == nil && s.Size() == size {
			return s, nil
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, ErrOldCache) {
			return nil, err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("pcs: ceremony %s: %w", path, err)
		}
	}
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("pcs: ceremony: %w", err)
	}
	s, err := ReadCeremony(bufio.NewReaderSize(f, 1<<20), info.Size(), size)
	if err != nil {
		return nil, fmt.Errorf("pcs: ceremony %s: %w", path, err)
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("pcs: ceremony %s: %w", path, err)
	}
	if cachePath != "" {
		if err := s.WriteCache(cachePath, false); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// ReadCeremony decodes the first size G1 τ-powers and [τ]₂, [τ²]₂, [τ³]₂
// from the encoding of an mpcsetup.SrsCommons (limit bytes long at most):
//
//	N (8 bytes, big-endian) · [β]₂ · [τ¹]₁ … [τ^{2N−2}]₁ · [τ¹]₂ … [τ^{N−1}]₂ · (the β and α powers)
//
// with G1 points 48-byte compressed and G2 points 96-byte compressed, no
// length prefixes (as gnark's encoder writes them);
// [τ⁰]₁ is the generator and is not stored. It reads no further than [τ³]₂
// (so the ceremony needs N ≥ 4).
// The points it keeps are subgroup-checked; the caller should also run
// [SRS.Check].
func ReadCeremony(r io.Reader, limit int64, size int) (*SRS, error) {
	const (
		g1Size = bls12377.SizeOfG1AffineCompressed
		g2Size = bls12377.SizeOfG2AffineCompressed
	)
	var nb [8]byte
	if _, err := io.ReadFull(r, nb[:]); err != nil {
		return nil, fmt.Errorf("domain size: %w", err)
	}
	n := binary.BigEndian.Uint64(nb[:])
	// Each of the 2N−2 G1 τ-powers takes at least g1Size bytes.
	if n < 2 || n > uint64(limit)/(2*g1Size) {
		return nil, fmt.Errorf("domain size %d does not fit in %d bytes", n, limit)
	}
	if n < MinSize {
		return nil, fmt.Errorf("domain size %d: the verifier needs [τ³]₂, N ≥ %d", n, MinSize)
	}
	if size < MinSize || uint64(size) > 2*n-1 {
		return nil, fmt.Errorf("%d powers requested, the ceremony has %d", size, 2*n-1)
	}
	var buf [g2Size]byte
	if _, err := io.ReadFull(r, buf[:]); err != nil { // [β]₂, not used
		return nil, fmt.Errorf("[β]₂: %w", err)
	}
	_, _, g1, _ := bls12377.Generators()
	powers := hugepage.Make[bls12377.G1Affine](size)
	powers[0] = g1
	for i := uint64(1); i <= 2*n-2; i++ {
		if _, err := io.ReadFull(r, buf[:g1Size]); err != nil {
			return nil, fmt.Errorf("[τ^%d]₁: %w", i, err)
		}
		if buf[0]&(0b100<<5) == 0 {
			return nil, fmt.Errorf("[τ^%d]₁ is not compressed", i)
		}
		if i < uint64(size) {
			if _, err := powers[i].SetBytes(buf[:g1Size]); err != nil {
				return nil, fmt.Errorf("[τ^%d]₁: %w", i, err)
			}
		}
	}
	tauG2, err := readTauG2(r, g2Size)
	if err != nil {
		return nil, err
	}
	return newSRS(powers, tauG2), nil
}

// readTauG2 reads [τ]₂, [τ²]₂, [τ³]₂, each of size bytes (compressed or
// not); SetBytes checks that each is in G2.
func readTauG2(r io.Reader, size int) ([3]bls12377.G2Affine, error) {
	var out [3]bls12377.G2Affine
	var buf [bls12377.SizeOfG2AffineUncompressed]byte
	for i := range out {
		if _, err := io.ReadFull(r, buf[:size]); err != nil {
			return out, fmt.Errorf("[τ^%d]₂: %w", i+1, err)
		}
		if _, err := out[i].SetBytes(buf[:size]); err != nil {
			return out, fmt.Errorf("[τ^%d]₂: %w", i+1, err)
		}
	}
	return out, nil
}

// setRawG1 decodes an uncompressed G1 point (gnark-crypto's RawBytes) without
// the subgroup check, which costs a scalar multiplication per point; it
// checks that the point is on the curve.
func setRawG1(p *bls12377.G1Affine, buf []byte) error {
	const half = bls12377.SizeOfG1AffineUncompressed / 2
	switch buf[0] & (0b111 << 5) {
	case 0b010 << 5: // the identity
		p.SetInfinity()
		return nil
	case 0: // uncompressed
	default:
		return errors.New("not an uncompressed point")
	}
	if err := p.X.SetBytesCanonical(buf[:half]); err != nil {
		return err
	}
	if err := p.Y.SetBytesCanonical(buf[half:]); err != nil {
		return err
	}
	if !p.IsOnCurve() {
		return errors.New("point not on the curve")
	}
	return nil
}
