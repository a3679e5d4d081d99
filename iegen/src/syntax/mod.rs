//! TEMPORARY STUB (replaced by the real parser).
pub mod ast;
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub span: ast::Span,
    pub message: String,
}
pub fn line_col(_src: &str, _offset: usize) -> (usize, usize) {
    (1, 1)
}
pub fn parse_formula(_src: &str) -> Result<ast::AstFormula, SyntaxError> {
    Err(SyntaxError {
        line: 1,
        column: 1,
        span: ast::Span::default(),
        message: "stub".into(),
    })
}
pub fn parse_program(_src: &str) -> Result<Vec<ast::Statement>, SyntaxError> {
    Err(SyntaxError {
        line: 1,
        column: 1,
        span: ast::Span::default(),
        message: "stub".into(),
    })
}
