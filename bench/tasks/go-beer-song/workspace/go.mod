module beer

go 1.18
