package model

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/veriformer/veriformer/model/tokenizer"
)

// Source is what a command's --model flag names: a built-in model
// ([BuiltinNames]) or a directory in Hugging Face's layout.
type Source struct {
	// Builtin is the built-in model's name, or "" for a directory.
	Builtin string
	// Dir is the directory, or "" for a built-in model.
	Dir string
}

// ParseSource reads a --model flag's value: "" is the built-in model def,
// a built-in name is that model, anything else a directory. A built-in
// name that is also a directory here is refused as ambiguous (write
// ./name for the directory).
func ParseSource(arg, def string) (Source, error) {
	if arg == "" {
		arg = def
	}
	if !IsBuiltin(arg) {
		if _, err := os.Stat(arg); errors.Is(err, os.ErrNotExist) {
			return Source{}, fmt.Errorf("model: %q is neither a built-in model (%s) nor a directory", arg, strings.Join(BuiltinNames(), ", "))
		}
		return Source{Dir: filepath.Clean(arg)}, nil
	}
	if _, err := os.Stat(arg); err == nil {
		return Source{}, fmt.Errorf("model: %q names a built-in model and a directory here: write ./%s for the directory", arg, arg)
	}
	return Source{Builtin: arg}, nil
}

// String is the built-in name or the directory.
func (s Source) String() string {
	if s.Builtin != "" {
		return s.Builtin
	}
	return s.Dir
}

// Config reads only the model's shape: the built-in one, or config.json.
func (s Source) Config() (*Config, error) {
	if s.Builtin != "" {
		return BuiltinConfig(s.Builtin)
	}
	data, err := os.ReadFile(filepath.Join(s.Dir, ConfigFile))
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return ParseConfig(data)
}

// errBuiltinBOS refuses --bos on for the built-in models.
var errBuiltinBOS = errors.New("model: the built-in models' byte tokenizer has no beginning-of-sequence token")

// Codec reads only the tokenizer, with the beginning-of-sequence rule
// bos.
func (s Source) Codec(bos tokenizer.BOSMode) (*tokenizer.Codec, error) {
	if s.Builtin != "" {
		if bos == tokenizer.BOSOn {
			return nil, errBuiltinBOS
		}
		return tokenizer.NewByteCodec(), nil
	}
	return tokenizer.LoadCodec(s.Dir, bos)
}

// Load returns the model ([Builtin], or [LoadBOS] of the directory: its
// tokenizer only if the directory has one).
func (s Source) Load(bos tokenizer.BOSMode) (*Model, error) {
	if s.Builtin == "" {
		return LoadBOS(s.Dir, bos)
	}
	if bos == tokenizer.BOSOn {
		return nil, errBuiltinBOS
	}
	return Builtin(s.Builtin)
}

// LoadText is Load for commands that read and print text: a directory
// without tokenizer files is refused ([LoadText]).
func (s Source) LoadText(bos tokenizer.BOSMode) (*Model, error) {
	if s.Builtin == "" {
		return LoadText(s.Dir, bos)
	}
	return s.Load(bos)
}
