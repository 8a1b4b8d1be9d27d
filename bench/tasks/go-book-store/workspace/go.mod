module bookstore

go 1.18
