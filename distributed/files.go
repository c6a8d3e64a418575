package distributed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Inputs are a job's inputs as its handler reads them: each checked
// against its blob name, read when the handler asks for it (a handler
// that caches an input, a proving key, reads it once).
type Inputs struct {
	ctx context.Context
	q   *Queue
	job *Job
}

// blob returns the blob of a role, or a deterministic error: a job
// without the input is a bad job.
func (in *Inputs) blob(role string) (string, error) {
	blob, ok := in.job.Inputs[role]
	if !ok {
		return "", Deterministic(fmt.Errorf("job %s has no input %q", in.job.ID, role))
	}
	return blob, nil
}

// Get reads the input of a role, of at most max bytes.
func (in *Inputs) Get(role string, max int64) ([]byte, error) {
	blob, err := in.blob(role)
	if err != nil {
		return nil, err
	}
	return in.q.Get(in.ctx, blob, max)
}

// Fetch writes the input of a role, of at most max bytes, to the file
// path, through a temporary file renamed once the whole blob is there
// and checked; a large input is never held in memory whole.
func (in *Inputs) Fetch(role, path string, max int64) error {
	blob, err := in.blob(role)
	if err != nil {
		return err
	}
	return in.q.GetFile(in.ctx, blob, path, max)
}

// PutFile stores the file at path as a blob and returns its name. With
// digest (the file's SHA-256, in hexadecimal, optionally prefixed
// "sha256:", as a key manifest records it) a blob already stored with
// the bytes of that name is kept, checked by reading it back from the
// store; one stored otherwise (a squatted name) is overwritten. The
// file is streamed part by part either way, and a file whose bytes do
// not have the digest is refused (its parts removed, no blob of that
// name left).
func (q *Queue) PutFile(ctx context.Context, path, digest string) (string, error) {
	digest = strings.TrimPrefix(digest, "sha256:")
	if digest != "" {
		if !blobName.MatchString(digest) {
			return "", fmt.Errorf("distributed: %q is not a SHA-256 digest", digest)
		}
		// The blob stored is read back whole, at most the file's size
		// (or 1 TiB when the file is not there to tell).
		size := int64(1 << 40)
		if st, err := os.Stat(path); err == nil {
			size = st.Size()
		}
		if ok, err := q.stored(ctx, digest, size); err != nil || ok {
			return digest, err
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if st.Size() <= partSize || digest == "" {
		// Small, or a name to learn first: read whole.
		data, err := io.ReadAll(f)
		if err != nil {
			return "", err
		}
		n := Blob(data)
		if digest != "" && n != digest {
			return "", fmt.Errorf("distributed: %s has digest %s, not %s", path, n, digest)
		}
		return q.Put(ctx, data)
	}
	h := sha256.New()
	buf := make([]byte, partSize)
	parts := 0
	for {
		n, err := io.ReadFull(f, buf)
		if n > 0 {
			h.Write(buf[:n])
			if err := q.putObject(ctx, fmt.Sprintf("%s.%d", digest, parts), buf[:n], nil); err != nil {
				return "", err
			}
			parts++
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return "", err
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != digest {
		for i := range parts {
			_ = q.own().Delete(ctx, fmt.Sprintf("%s.%d", digest, i))
		}
		return "", fmt.Errorf("distributed: %s has digest %s, not %s", path, got, digest)
	}
	if err := q.putObject(ctx, digest, nil, map[string]string{"parts": strconv.Itoa(parts)}); err != nil {
		return "", err
	}
	return digest, nil
}

// GetFile writes the blob of that name, of at most max bytes, to the
// file path, part by part through a temporary file beside it, renamed
// once its digest is checked.
func (q *Queue) GetFile(ctx context.Context, blob, path string, max int64) (err error) {
	if !blobName.MatchString(blob) {
		return fmt.Errorf("distributed: %q is not a blob name", blob)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.part")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := q.read(ctx, blob, max, tmp); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
