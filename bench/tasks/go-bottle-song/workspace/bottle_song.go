package bottlesong

func Recite(startBottles, takeDown int) []string {
	panic("Please implement the Recite function")
}
