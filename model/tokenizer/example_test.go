package tokenizer_test

import (
	"fmt"

	"github.com/veriformer/veriformer/model/tokenizer"
)

func ExampleLoadGPT2() {
	// A vocabulary of the byte-level characters 'h', 'i', 'Ġ' (space) and
	// their merges; a real vocab.json and merges.txt have the same form.
	vocab := []byte(`{"h":0,"i":1,"Ġ":2,"hi":3,"Ġhi":4,"<|endoftext|>":5}`)
	merges := []byte("#version: 0.2\nh i\nĠ hi\n")
	tok, err := tokenizer.LoadGPT2(vocab, merges)
	if err != nil {
		fmt.Println(err)
		return
	}
	ids, err := tok.Encode("hi hi<|endoftext|>")
	fmt.Println(ids, err)
	text, err := tok.Decode(ids)
	fmt.Printf("%q %v\n", text, err)
	// Output:
	// [3 4 5] <nil>
	// "hi hi<|endoftext|>" <nil>
}

func ExampleNewByte() {
	tok := tokenizer.NewByte()
	ids, _ := tok.Encode("Hé")
	fmt.Println(ids, tok.VocabSize())
	// Output: [72 195 169] 256
}
