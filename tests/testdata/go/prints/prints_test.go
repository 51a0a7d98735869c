package prints

import (
	"fmt"
	"testing"
)

// Prints a line per iteration: Go prints the name, this output, then the result fields.
func BenchmarkPrint(b *testing.B) {
	for i := 0; i < b.N; i++ {
		fmt.Println("hello")
	}
}

// Prints without a trailing newline: the result fields follow the output on its line.
func BenchmarkPrintNoNewline(b *testing.B) {
	for i := 0; i < b.N; i++ {
		fmt.Print("x")
	}
}

// Prints numbers, some in Go's own result format, and logs one (shown after "--- BENCH:").
func BenchmarkLookalike(b *testing.B) {
	b.Logf("%8d\t%10.0f ns/op", 1, 1.0)
	for i := 0; i < b.N; i++ {
		fmt.Println("3 items in 5 ns/op")
		fmt.Printf("%8d\t%10.0f ns/op\t%8d B/op\n", 7, 1.0, 1)
	}
}

// Sub-benchmarks that print without a newline once per run: the name of the next one that
// runs follows that output on its line.
func BenchmarkSizes(b *testing.B) {
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			fmt.Print("sub ")
			for i := 0; i < b.N; i++ {
				_ = fmt.Sprint(n)
			}
		})
	}
}
