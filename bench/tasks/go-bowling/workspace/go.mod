module bowling

go 1.18
