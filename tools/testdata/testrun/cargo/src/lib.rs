pub fn mul(a: i32, b: i32) -> i32 {
    a * b
}

#[cfg(test)]
mod tests {
    use super::mul;

    #[test]
    fn mul_small() {
        assert_eq!(mul(2, 3), 6);
    }

    #[test]
    fn mul_square() {
        assert_eq!(mul(2, 2), 5, "two times two");
    }
}
