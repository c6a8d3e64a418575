package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// withJSON returns a copy of the tokenizer.json document data changed by f.
func withJSON(t *testing.T, data []byte, f func(doc map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	f(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func digestOf(t *testing.T, c *Codec) [32]byte {
	t.Helper()
	return c.Digest()
}

func TestCodecDigest(t *testing.T) {
	data := llamaTokenizerJSON(t, true)
	load := func(data []byte) Tokenizer {
		t.Helper()
		tok, err := LoadTokenizerJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	base := digestOf(t, &Codec{Tokenizer: load(data), BOS: NoBOS})
	if again := digestOf(t, &Codec{Tokenizer: load(data), BOS: NoBOS}); again != base {
		t.Fatal("the digest of one tokenizer differs between loads")
	}
	// Spelling: merges as pairs instead of strings, indented JSON.
	pairs := withJSON(t, data, func(doc map[string]any) {
		m := doc["model"].(map[string]any)
		var out [][2]string
		for _, s := range m["merges"].([]any) {
			l, r, _ := strings.Cut(s.(string), " ")
			out = append(out, [2]string{l, r})
		}
		m["merges"] = out
	})
	var indented map[string]any
	if err := json.Unmarshal(pairs, &indented); err != nil {
		t.Fatal(err)
	}
	pretty, _ := json.MarshalIndent(indented, "", "    ")
	if d := digestOf(t, &Codec{Tokenizer: load(pretty), BOS: NoBOS}); d != base {
		t.Error("the digest depends on how tokenizer.json spells the merges")
	}
	// Every change of content changes the digest.
	changes := map[string][]byte{
		"swapped vocabulary": withJSON(t, data, func(doc map[string]any) {
			v := doc["model"].(map[string]any)["vocab"].(map[string]any)
			v["a"], v["d"] = v["d"], v["a"]
		}),
		"dropped merge": withJSON(t, data, func(doc map[string]any) {
			m := doc["model"].(map[string]any)
			m["merges"] = m["merges"].([]any)[:len(m["merges"].([]any))-1]
		}),
		"reordered merges": withJSON(t, data, func(doc map[string]any) {
			m := doc["model"].(map[string]any)["merges"].([]any)
			m[0], m[1] = m[1], m[0]
		}),
		"special token not special": withJSON(t, data, func(doc map[string]any) {
			doc["added_tokens"].([]any)[2].(map[string]any)["normalized"] = true
		}),
		"no byte fallback": withJSON(t, data, func(doc map[string]any) {
			doc["model"].(map[string]any)["byte_fallback"] = false
		}),
		"other decoder": withJSON(t, data, func(doc map[string]any) {
			doc["decoder"] = map[string]any{"type": "Fuse"}
		}),
	}
	for name, changed := range changes {
		if d := digestOf(t, &Codec{Tokenizer: load(changed), BOS: NoBOS}); d == base {
			t.Errorf("%s: same digest", name)
		}
	}
	if d := digestOf(t, &Codec{Tokenizer: load(data), BOS: 1}); d == base {
		t.Error("the BOS rule does not change the digest")
	}
	if a, b := digestOf(t, NewByteCodec()), digestOf(t, &Codec{Tokenizer: NewByte(), BOS: 0}); a == b || a == base {
		t.Error("byte codecs: digests collide")
	}
}

func TestLoadCodecBOS(t *testing.T) {
	write := func(dir, name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	llama := llamaTokenizerJSON(t, true)
	template := withJSON(t, llama, func(doc map[string]any) {
		doc["post_processor"] = map[string]any{"type": "TemplateProcessing",
			"single": []any{
				map[string]any{"SpecialToken": map[string]any{"id": "<s>", "type_id": 0}},
				map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}},
			}}
	})
	vocab, _ := json.Marshal(testVocab())
	merges := []byte(strings.Join(testMerges, "\n"))
	dir := func(files map[string][]byte) string {
		d := t.TempDir()
		for name, data := range files {
			write(d, name, data)
		}
		return d
	}
	configTrue := []byte(`{"add_bos_token": true, "bos_token": "<s>"}`)
	configObject := []byte(`{"add_bos_token": true, "bos_token": {"__type": "AddedToken", "content": "<s>", "special": true}}`)
	configFalse := []byte(`{"add_bos_token": false, "bos_token": "<s>"}`)
	configName := []byte(`{"bos_token": "<s>"}`)
	cases := []struct {
		name  string
		files map[string][]byte
		mode  BOSMode
		bos   int    // the BOS id wanted, NoBOS for none
		err   string // a substring of the error wanted, "" for none
	}{
		{"llama, add_bos_token", map[string][]byte{"tokenizer.json": llama, "tokenizer_config.json": configTrue}, BOSAuto, 1, ""},
		{"llama, bos_token object", map[string][]byte{"tokenizer.json": llama, "tokenizer_config.json": configObject}, BOSAuto, 1, ""},
		{"llama, add_bos_token false", map[string][]byte{"tokenizer.json": llama, "tokenizer_config.json": configFalse}, BOSAuto, NoBOS, ""},
		{"llama, add_bos_token false, on", map[string][]byte{"tokenizer.json": llama, "tokenizer_config.json": configFalse}, BOSOn, 1, ""},
		{"llama, add_bos_token, off", map[string][]byte{"tokenizer.json": llama, "tokenizer_config.json": configTrue}, BOSOff, NoBOS, ""},
		{"llama, template only", map[string][]byte{"tokenizer.json": template}, BOSAuto, 1, ""},
		{"llama, no config, no template", map[string][]byte{"tokenizer.json": llama}, BOSAuto, NoBOS, ""},
		{"llama, bos_token without add", map[string][]byte{"tokenizer.json": llama, "tokenizer_config.json": configName}, BOSAuto, NoBOS, ""},
		{"llama, bos_token without add, on", map[string][]byte{"tokenizer.json": llama, "tokenizer_config.json": configName}, BOSOn, 1, ""},
		{"gpt-2 files", map[string][]byte{"vocab.json": vocab, "merges.txt": merges}, BOSAuto, NoBOS, ""},
		{"gpt-2 files, on", map[string][]byte{"vocab.json": vocab, "merges.txt": merges}, BOSOn, NoBOS, "names no beginning-of-sequence token"},
		{"unknown bos_token", map[string][]byte{"tokenizer.json": llama, "tokenizer_config.json": []byte(`{"add_bos_token": true, "bos_token": "<bos>"}`)}, BOSAuto, NoBOS, "not in the vocabulary"},
		{"bad config", map[string][]byte{"tokenizer.json": llama, "tokenizer_config.json": []byte(`{"bos_token": 3}`)}, BOSAuto, NoBOS, "bos_token"},
		{"broken config", map[string][]byte{"tokenizer.json": llama, "tokenizer_config.json": []byte(`{`)}, BOSAuto, NoBOS, "tokenizer_config.json"},
		{"template adds a token after the text", map[string][]byte{"tokenizer.json": withJSON(t, template, func(doc map[string]any) {
			p := doc["post_processor"].(map[string]any)
			p["single"] = append(p["single"].([]any), map[string]any{"SpecialToken": map[string]any{"id": "</s>", "type_id": 0}})
		})}, BOSAuto, NoBOS, "after the text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			codec, err := LoadCodec(dir(c.files), c.mode)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if codec.BOS != c.bos {
				t.Fatalf("BOS %d, want %d", codec.BOS, c.bos)
			}
			ids, err := codec.EncodePrompt("hello")
			if err != nil {
				t.Fatal(err)
			}
			plain, _ := codec.Tokenizer.Encode("hello")
			want := plain
			if c.bos != NoBOS {
				want = append([]int{c.bos}, plain...)
			}
			if !reflect.DeepEqual(ids, want) {
				t.Fatalf("EncodePrompt = %v, want %v", ids, want)
			}
		})
	}
	for _, s := range []string{"auto", "on", "off"} {
		if m, err := ParseBOSMode(s); err != nil || m.String() != s {
			t.Errorf("ParseBOSMode(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := ParseBOSMode("yes"); err == nil {
		t.Error("ParseBOSMode accepted yes")
	}
}
