package alphametics

func Solve(puzzle string) (map[string]int, error) {
	panic("Please implement the Solve function")
}
