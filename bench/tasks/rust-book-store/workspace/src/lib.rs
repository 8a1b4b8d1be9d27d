pub fn lowest_price(books: &[u32]) -> u32 {
    todo!("Find the lowest price of the bookbasket with books {books:?}")
}
