// Package schemacheck checks circuit structs against a cost of gnark's
// schema walk: at every compile and every witness (frontend.Compile,
// frontend.NewWitness) the walk visits every field of the circuit that is
// not tagged gnark:"-", unexported ones included, and every element of
// every slice below them. A circuit that keeps its model or layout in an
// untagged field has every weight visited (for GPT-2 small, 124M of them,
// 50 s per witness). It serves the packages' tests only.
package schemacheck

import (
	"reflect"
	"testing"
)

// Walked returns the unexported fields of the struct type typ that the
// schema walk visits: those without the gnark:"-" tag. An embedded
// struct (or pointer to one) is walked whatever its tag, so its fields
// are checked in turn, named after it.
func Walked(typ reflect.Type) []string {
	var names []string
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if f.Anonymous {
			inner := f.Type
			if inner.Kind() == reflect.Pointer {
				inner = inner.Elem()
			}
			if inner.Kind() == reflect.Struct {
				for _, name := range Walked(inner) {
					names = append(names, typ.Name()+"."+name)
				}
				continue
			}
		}
		if !f.IsExported() && f.Tag.Get("gnark") != "-" {
			names = append(names, typ.Name()+"."+f.Name)
		}
	}
	return names
}

// Check reports, as errors of t, every field of the circuits' struct
// types (circuits are values or pointers) that Walked returns.
func Check(t testing.TB, circuits ...any) {
	t.Helper()
	for _, c := range circuits {
		typ := reflect.TypeOf(c)
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		for _, name := range Walked(typ) {
			t.Errorf("%s is walked by gnark's schema: tag it gnark:\"-\"", name)
		}
	}
}
