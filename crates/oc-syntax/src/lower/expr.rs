//! Expressions and dice, pest pairs to the syntax tree: operators by precedence (pest's Pratt
//! parser), operands, and the dice written in them.

use super::*;

fn pratt() -> &'static PrattParser<Rule> {
    static PRATT: OnceLock<PrattParser<Rule>> = OnceLock::new();
    PRATT.get_or_init(|| {
        PrattParser::new()
            .op(Op::infix(Rule::or, Assoc::Left))
            .op(Op::infix(Rule::and, Assoc::Left))
            .op(Op::infix(Rule::eq, Assoc::Left)
                | Op::infix(Rule::ne, Assoc::Left)
                | Op::infix(Rule::lt, Assoc::Left)
                | Op::infix(Rule::le, Assoc::Left)
                | Op::infix(Rule::gt, Assoc::Left)
                | Op::infix(Rule::ge, Assoc::Left))
            .op(Op::infix(Rule::add, Assoc::Left) | Op::infix(Rule::sub, Assoc::Left))
            .op(Op::infix(Rule::mul, Assoc::Left) | Op::infix(Rule::div, Assoc::Left) | Op::infix(Rule::rem, Assoc::Left))
            .op(Op::prefix(Rule::neg) | Op::prefix(Rule::not))
            .op(Op::postfix(Rule::field) | Op::postfix(Rule::index) | Op::postfix(Rule::has))
    })
}

impl Ctx {
    pub(super) fn expr(&self, pair: Pair<Rule>) -> Expr {
        // A chain of operators builds a tree as deep as it is long; refuse absurd lengths before
        // they exhaust the stack of every later pass.
        let pieces = pair.clone().into_inner().count();
        if pieces > MAX_EXPR_PIECES {
            let span = self.span(&pair);
            self.problems.borrow_mut().push(
                oc_diag::Diagnostic::error(
                    crate::TOO_LONG,
                    span,
                    format!("this expression has {pieces} parts; at most {MAX_EXPR_PIECES} are allowed"),
                )
                .with_label("too long")
                .with_help("split it into helper formulas or simplify it"),
            );
            return Expr { kind: ExprKind::Error, span };
        }
        self.expr_pairs(pair.into_inner())
    }

    pub(super) fn expr_pairs(&self, pairs: Pairs<Rule>) -> Expr {
        pratt()
            .map_primary(|p| self.primary(p))
            .map_prefix(|op, rhs| {
                let span = self.span(&op).to(rhs.span);
                let op = if op.as_rule() == Rule::neg { UnaryOp::Neg } else { UnaryOp::Not };
                Expr { kind: ExprKind::Unary(op, Box::new(rhs)), span }
            })
            .map_postfix(|lhs, op| {
                let span = lhs.span.to(self.span(&op));
                let kind = match op.as_rule() {
                    Rule::field => match op.into_inner().next() {
                        Some(f) => ExprKind::Field(Box::new(lhs), self.ident(&f)),
                        None => ExprKind::Error,
                    },
                    Rule::index => ExprKind::Index(Box::new(lhs), op.into_inner().map(|e| self.expr(e)).collect()),
                    _ => match op.into_inner().find(|q| q.as_rule() == Rule::tag_ref).and_then(|t| self.tag_ref(t)) {
                        Some(tag) => ExprKind::Has(Box::new(lhs), Box::new(tag)),
                        None => ExprKind::Error,
                    },
                };
                Expr { kind, span }
            })
            .map_infix(|lhs, op, rhs| {
                let span = lhs.span.to(rhs.span);
                let op = match op.as_rule() {
                    Rule::or => BinaryOp::Or,
                    Rule::and => BinaryOp::And,
                    Rule::eq => BinaryOp::Eq,
                    Rule::ne => BinaryOp::Ne,
                    Rule::lt => BinaryOp::Lt,
                    Rule::le => BinaryOp::Le,
                    Rule::gt => BinaryOp::Gt,
                    Rule::ge => BinaryOp::Ge,
                    Rule::add => BinaryOp::Add,
                    Rule::sub => BinaryOp::Sub,
                    Rule::mul => BinaryOp::Mul,
                    Rule::div => BinaryOp::Div,
                    _ => BinaryOp::Rem,
                };
                Expr { kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), span }
            })
            .parse(pairs)
    }

    /// Dice terms joined by `+` and `-` with whole numbers (`2d10 + 3d8 - 1`): the terms, the
    /// constant, and the span from the first term to the last (the pair also holds the blank
    /// after it).
    pub(super) fn dice_sum(&self, sum: Pair<Rule>) -> (Vec<(bool, DieLit)>, i64, Span) {
        let mut span = self.span(&sum);
        span.end = span.start;
        let (mut terms, mut constant, mut negative) = (Vec::new(), 0i64, false);
        for q in sum.into_inner() {
            if matches!(q.as_rule(), Rule::die | Rule::int) {
                span.end = self.span(&q).end;
            }
            match q.as_rule() {
                Rule::add => negative = false,
                Rule::sub => negative = true,
                Rule::die => terms.push((negative, self.die(q))),
                Rule::int => {
                    let v = self.int(&q).value;
                    constant = constant.saturating_add(if negative { v.saturating_neg() } else { v });
                }
                _ => {}
            }
        }
        (terms, constant, span)
    }

    /// A die term (`2d6kh1`, `d{0,1,2}`, `d10!`).
    pub(super) fn die(&self, pair: Pair<Rule>) -> DieLit {
        let span = self.span(&pair);
        let small = |q: &Pair<Rule>| {
            let digits = q.as_str().trim_start_matches(|c: char| !c.is_ascii_digit());
            Spanned::new(digits.parse::<u64>().map_or(u32::MAX, |n| u32::try_from(n).unwrap_or(u32::MAX)), self.span(q))
        };
        let mut die = DieLit {
            count: None,
            sides: None,
            faces: Vec::new(),
            face_names: Vec::new(),
            explode: false,
            crit: false,
            keep: None,
            span,
        };
        for q in pair.into_inner() {
            match q.as_rule() {
                Rule::die_count => die.count = Some(small(&q)),
                Rule::die_sides => die.sides = Some(small(&q)),
                Rule::die_faces => {
                    for f in q.into_inner().filter(|r| r.as_rule() == Rule::die_face) {
                        let mut name = None;
                        for part in f.into_inner() {
                            match part.as_rule() {
                                Rule::face_name => name = Some(self.ident(&part)),
                                Rule::int => {
                                    die.faces.push(self.int(&part));
                                    die.face_names.push(name.take());
                                }
                                _ => {}
                            }
                        }
                    }
                }
                Rule::die_explode => die.explode = true,
                Rule::die_crit => die.crit = true,
                Rule::die_keep => die.keep = Some((q.as_str().starts_with("kh"), small(&q))),
                _ => {}
            }
        }
        die
    }

    pub(super) fn primary(&self, pair: Pair<Rule>) -> Expr {
        let span = self.span(&pair);
        let kind = match pair.as_rule() {
            Rule::int => ExprKind::Int(self.int(&pair).value),
            Rule::die => ExprKind::Die(Box::new(self.die(pair))),
            Rule::kw_true => ExprKind::Bool(true),
            Rule::kw_false => ExprKind::Bool(false),
            Rule::string => ExprKind::Str(unquote(&pair)),
            Rule::ident => ExprKind::Name(Name::new(pair.as_str())),
            Rule::paren => match pair.into_inner().next() {
                Some(e) => return Expr { span, ..self.expr(e) },
                None => ExprKind::Error,
            },
            Rule::if_expr => {
                let mut parts = pair.into_inner().filter(|p| p.as_rule() == Rule::expr).map(|e| self.expr(e));
                match (parts.next(), parts.next(), parts.next()) {
                    (Some(c), Some(t), Some(e)) => ExprKind::If(Box::new(c), Box::new(t), Box::new(e)),
                    _ => ExprKind::Error,
                }
            }
            Rule::call => {
                let mut inner = pair.into_inner();
                match inner.next() {
                    Some(f) => ExprKind::Call(self.ident(&f), inner.map(|e| self.expr(e)).collect()),
                    None => ExprKind::Error,
                }
            }
            _ => ExprKind::Error,
        };
        Expr { kind, span }
    }
}
