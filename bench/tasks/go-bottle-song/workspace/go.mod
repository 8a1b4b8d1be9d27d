module bottlesong

go 1.18
