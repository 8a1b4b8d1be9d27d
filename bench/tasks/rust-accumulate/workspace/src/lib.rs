/// What should the type of _function be?
pub fn map(input: Vec<i32>, _function: ???) -> Vec<i32> {
    todo!("Transform input vector {input:?} using passed function");
}
