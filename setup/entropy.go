package setup

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"sync"
)

// gnark's Contribute methods draw each contribution's secrets with
// fr.Element.SetRandom, which reads crypto/rand.Reader and takes no other
// input. To mix a contributor's own entropy in, withEntropy replaces that
// reader, for the time of one contribution, by a reader whose every block
// is HMAC-SHA256(key, 32 fresh bytes from the operating system ‖ counter)
// with key = SHA-256(domain ‖ entropy): its output is unpredictable if
// either the operating system's randomness or the entropy is. The
// replacement is process-wide; entropyMu serialises contributions so two
// never swap the reader at once.
var entropyMu sync.Mutex

const entropyDomain = "veriformer/setup/contribution-entropy/v1"

func withEntropy(entropy []byte, f func()) {
	if len(entropy) == 0 {
		f()
		return
	}
	entropyMu.Lock()
	defer entropyMu.Unlock()
	key := sha256.Sum256(append([]byte(entropyDomain), entropy...))
	system := rand.Reader
	rand.Reader = &mixedReader{system: system, key: key[:]}
	defer func() { rand.Reader = system }()
	f()
}

// mixedReader is the reader of withEntropy.
type mixedReader struct {
	system  io.Reader
	key     []byte
	counter uint64
	buf     []byte
}

func (m *mixedReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(m.buf) == 0 {
			var fresh [sha256.Size + 8]byte
			if _, err := io.ReadFull(m.system, fresh[:sha256.Size]); err != nil {
				return n, fmt.Errorf("setup: entropy: %w", err)
			}
			binary.BigEndian.PutUint64(fresh[sha256.Size:], m.counter)
			m.counter++
			mac := hmac.New(sha256.New, m.key)
			mac.Write(fresh[:])
			m.buf = mac.Sum(nil)
		}
		c := copy(p[n:], m.buf)
		m.buf = m.buf[c:]
		n += c
	}
	return n, nil
}
