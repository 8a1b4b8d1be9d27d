package beer

func Song() string {
	panic("Please implement the Song function")
}

func Verses(start, stop int) (string, error) {
	panic("Please implement the Verses function")
}

func Verse(n int) (string, error) {
	panic("Please implement the Verse function")
}
