// Package snapshot compares values computed by a test with a file committed
// under testdata, the regression snapshots of the gadget packages (constraint
// counts per circuit shape, one CSV row per shape). Only tests import it;
// it is off the product path.
//
// # Usage
//
// A test builds its rows, header first, and hands them over with the value of
// its package's -update flag:
//
//	rows := [][]string{{"shape", "nb_constraints"}}
//	rows = append(rows, []string{"gpt2-small prompt", strconv.Itoa(n)})
//	snapshot.CheckCSV(t, "testdata/constraints.csv", rows, *update)
//
// Without -update the encoded rows must equal the file byte for byte; a
// missing file or any difference fails the test with the file's name and the
// new contents. With -update the file (and its directory) is written and the
// test passes, so an intended change is accepted by one run and reviewed as
// a diff of the testdata file.
//
// # Encoding
//
// Rows are encoded by [encoding/csv] with its defaults: fields holding a
// comma, a quote or a line break are quoted, and every record ends with "\n".
// The encoding is the file's format, so a file written by -update is read
// back unchanged.
package snapshot
