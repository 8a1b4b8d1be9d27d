module alphametics

go 1.18
