pub fn abbreviate(phrase: &str) -> String {
    todo!("Given the phrase '{phrase}', return its acronym");
}
