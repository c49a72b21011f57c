//! The owned syntax tree. Every node carries a [`Span`]; no pest type appears here.

pub use oc_diag::Name;
use oc_diag::{Span, Spanned};

pub type Ident = Spanned<oc_diag::Name>;

/// A list that is almost always one entry long (a class's `wields`, a weapon's `might`): that one
/// is kept in place, not in an allocation of its own. Written more than once, the entries are
/// all kept (the checker reports the repeats), then in an allocation.
pub type Few<T> = smallvec::SmallVec<[T; 1]>;

#[derive(Clone, Debug, Default)]
pub struct SourceFile {
    pub items: Vec<Item>,
    /// The names of definitions that could not be read (a syntax error, a misspelt keyword):
    /// the compiler does not call them unknown where they are used, the syntax error is the
    /// one to fix.
    pub unread: Vec<Spanned<String>>,
}

#[derive(Clone, Debug)]
pub enum Item {
    Import(Import),
    /// Boxed: one a project, and the largest item.
    Ruleset(Box<Ruleset>),
    Movement(Vec<Ident>),
    WeaponType(WeaponTypeDef),
    Triangle(Triangle),
    Terrain(TerrainDef),
    Tag(TagDef),
    Status(StatusDef),
    Class(ClassDef),
    Item(ItemDef),
    Scenario(ScenarioDef),
    Army(ArmyDef),
}

#[derive(Clone, Debug)]
pub struct Import {
    pub path: Spanned<String>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Ruleset {
    pub name: Ident,
    pub span: Span,
    pub doc: Option<String>,
    pub scales: Vec<ScaleDef>,
    pub stats: Vec<StatDef>,
    pub bases: Vec<BaseDef>,
    pub class_ranges: Vec<ClassRange>,
    pub inventory: Vec<Spanned<i64>>,
    pub weight_ranges: Vec<Spanned<(i64, i64)>>,
    pub dice: Vec<DiceDef>,
    pub tables: Vec<TableDef>,
    pub combat: Vec<CombatBlock>,
    pub resources: Vec<ResourceDef>,
    pub turns: Vec<TurnDef>,
    pub reactions: Vec<ReactionDef>,
    /// `reactions one|many`, each time it is written.
    pub reaction_modes: Vec<Spanned<String>>,
    /// `basic tags A, B`: tags every class holds.
    pub basic: Vec<TagRef>,
    /// `courage { ... }`: the advanced rule of courage, rout and rally.
    pub courage: Vec<CourageDef>,
    /// `leadership { ... }`, `situations { ... }`, `weather DICE { ... }`: more advanced rules.
    pub leadership: Vec<LeadershipDef>,
    pub situations: Vec<SituationsDef>,
    pub weather: Vec<WeatherDef>,
    /// `charging { with EXPR }`: the advanced rule of charging.
    pub charging: Vec<ChargingDef>,
    /// `formations { tags A, B }`: the advanced rule of formations.
    pub formations: Vec<FormationsDef>,
    /// `area { within EXPR }`: the advanced rule of area-affecting weapons.
    pub area: Vec<AreaDef>,
}

/// `formations { tags A, B }`.
#[derive(Clone, Debug)]
pub struct FormationsDef {
    pub doc: Option<String>,
    pub tags: Vec<Ident>,
    pub span: Span,
}

/// `area { within EXPR }`.
#[derive(Clone, Debug)]
pub struct AreaDef {
    pub doc: Option<String>,
    pub within: Vec<Expr>,
    pub span: Span,
}

/// `charging { with EXPR }`.
#[derive(Clone, Debug)]
pub struct ChargingDef {
    pub doc: Option<String>,
    pub with: Vec<Expr>,
    pub span: Span,
}

/// `leadership { general TAG  beyond N STATUS  save ROLL }`.
#[derive(Clone, Debug)]
pub struct LeadershipDef {
    pub doc: Option<String>,
    pub general: Vec<Ident>,
    pub beyond: Vec<(Spanned<i64>, Ident)>,
    pub save: Vec<Expr>,
    pub span: Span,
}

/// `situations { ground ATTR  flank STATUS  rear STATUS  blind STATUS  flying TAG STATUS  mixed STATUS }`.
#[derive(Clone, Debug)]
pub struct SituationsDef {
    pub doc: Option<String>,
    pub ground: Vec<Ident>,
    pub flank: Vec<Ident>,
    pub rear: Vec<Ident>,
    pub blind: Vec<Ident>,
    /// `flying TAG STATUS`: the tag, and the status its holders bear.
    pub flying: Vec<(Ident, Ident)>,
    /// `mixed STATUS`: borne by a unit of more than one troop type and by each of its bodies.
    pub mixed: Vec<Ident>,
    pub span: Span,
}

/// `weather DICE { FACE: STATUS ... }`.
#[derive(Clone, Debug)]
pub struct WeatherDef {
    pub doc: Option<String>,
    pub dice: Ident,
    pub faces: Vec<(Spanned<i64>, Ident)>,
    pub span: Span,
}

/// `courage { check ...  losses ...  routs within N  fear TAG within N  rally ...  pursuit }`.
#[derive(Clone, Debug)]
pub struct CourageDef {
    pub doc: Option<String>,
    pub check: Vec<Expr>,
    pub losses: Vec<Expr>,
    pub routs_within: Vec<Spanned<i64>>,
    pub fear: Vec<(Ident, Spanned<i64>)>,
    pub rally: Vec<Expr>,
    pub pursuit: Option<Span>,
    pub surrender: Option<Span>,
    pub span: Span,
}

/// `reaction Block "..." { cost stamina 1  requires ...  blocking = true  riposte }`.
#[derive(Clone, Debug)]
pub struct ReactionDef {
    pub name: Ident,
    pub title: Option<String>,
    pub doc: Option<String>,
    pub costs: Vec<(Ident, Spanned<i64>)>,
    pub requires: Vec<Expr>,
    pub modifiers: Vec<Stmt>,
    pub riposte: Option<Span>,
    /// `reroll FORMULA [by attacker|defender]`.
    pub reroll: Option<RerollDef>,
    pub span: Span,
}

/// `reroll FORMULA [by attacker|defender]` in a reaction.
#[derive(Clone, Debug)]
pub struct RerollDef {
    pub formula: Ident,
    pub by: Option<Spanned<String>>,
    pub span: Span,
}

/// `resource stamina: Int = self.max_stamina at start_of_round "Stamina"`.
#[derive(Clone, Debug)]
pub struct ResourceDef {
    pub name: Ident,
    pub ty: Ident,
    pub value: Expr,
    /// `None`: set at deployment only.
    pub at: Option<Ident>,
    pub title: Option<String>,
    pub span: Span,
}

/// `turn { order ...  spend RESOURCE  step_cost = ...  step_allowed = ... }`.
#[derive(Clone, Debug)]
pub struct TurnDef {
    pub order: Vec<Spanned<OrderDef>>,
    /// `threat adjacent` / `threat front`.
    pub threat: Vec<Ident>,
    /// `shooting` after the shape: a ranged attack draws free attacks from the shooter's zone.
    pub threat_shooting: bool,
    /// `line_of_sight`: attacks beyond contact need a clear line.
    pub line_of_sight: Vec<Span>,
    pub spend: Vec<Ident>,
    pub formulas: Vec<Formula>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum OrderDef {
    Alternate,
    Rolloff { dice: Ident },
    By { resource: Ident, ties: Option<Ident> },
}

#[derive(Clone, Debug)]
pub struct ScaleDef {
    pub name: Ident,
    pub members: Vec<Ident>,
}

#[derive(Clone, Debug)]
pub struct StatDef {
    pub name: Ident,
    pub ty: Ident,
    pub title: Option<String>,
}

#[derive(Clone, Debug)]
pub struct BaseDef {
    pub name: Ident,
    pub ty: Ident,
    pub value: Expr,
    pub title: Option<String>,
}

#[derive(Clone, Debug)]
pub struct ClassRange {
    pub ty: Ident,
    pub low: Spanned<Bound>,
    pub high: Spanned<Bound>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    Int(i64),
    Name(Name),
}

#[derive(Clone, Debug)]
pub struct DiceDef {
    pub name: Ident,
    /// The dice, each with `true` when subtracted.
    pub terms: Vec<(bool, DieLit)>,
    /// The sum of the constants written beside the dice (`2d6 + 1`).
    pub constant: i64,
    /// The whole shape (`2d10 + 3d8`).
    pub span: Span,
}

/// One die term as written: `d100`, `2d6`, `d10!`, `4d6kh3`, `d{0,0,1,2}`. Numbers too large for
/// `u32` saturate (the compiler reports them as out of range).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DieLit {
    pub count: Option<Spanned<u32>>,
    pub sides: Option<Spanned<u32>>,
    pub faces: Vec<Spanned<i64>>,
    /// The faces' names, where written (`d{save=1, melee=100}`), one per face.
    pub face_names: Vec<Option<Ident>>,
    pub explode: bool,
    /// `2d8c`: one more die when any shows its highest face.
    pub crit: bool,
    /// `kh N` (true) or `kl N` (false).
    pub keep: Option<(bool, Spanned<u32>)>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct TableDef {
    pub name: Ident,
    pub keys: Vec<Ident>,
    pub value_ty: Ident,
    pub rows: Vec<TableRow>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct TableRow {
    pub keys: Vec<Ident>,
    pub values: Vec<Spanned<Literal>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Literal {
    Int(i64),
    Bool(bool),
    Name(Name),
    /// Dice, each with `true` when subtracted, and the constant beside them: `2d10 + 3d8 - 1`.
    Dice(Vec<(bool, DieLit)>, i64),
}

#[derive(Clone, Debug)]
pub struct CombatBlock {
    pub formulas: Vec<Formula>,
    /// `gain attacker luck = EXPR`, in written order.
    pub gains: Vec<GainDef>,
    pub span: Span,
}

/// `gain attacker|defender RESOURCE = EXPR` in a combat block.
#[derive(Clone, Debug)]
pub struct GainDef {
    /// `attacker` or `defender`.
    pub side: Spanned<String>,
    pub resource: Ident,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Formula {
    pub name: Ident,
    pub value: Expr,
}

#[derive(Clone, Debug)]
pub struct WeaponTypeDef {
    pub name: Ident,
    pub magic: bool,
    pub staff: bool,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Triangle {
    pub chains: Vec<Vec<Ident>>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct TerrainDef {
    pub name: Ident,
    pub title: Option<String>,
    pub doc: Option<String>,
    pub symbols: Vec<Spanned<String>>,
    pub defense: Vec<Spanned<i64>>,
    pub costs: Vec<CostEntry>,
    pub heal: Vec<TerrainHeal>,
    pub hp: Vec<Spanned<i64>>,
    pub becomes: Vec<Ident>,
    pub opened_by: Vec<Ident>,
    pub impassable: Option<Span>,
    /// `blocks_sight`: no line of sight passes over it.
    pub blocks_sight: Option<Span>,
    /// `elevation N`: how high the ground is.
    pub elevation: Vec<Spanned<i64>>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct CostEntry {
    pub movement: Ident,
    /// `None` is `-`: impassable for that movement type.
    pub cost: Spanned<Option<i64>>,
}

#[derive(Clone, Debug)]
pub struct TerrainHeal {
    pub amount: Spanned<i64>,
    pub event: Ident,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: Ident,
    pub ty: Ident,
}

#[derive(Clone, Debug)]
pub struct TagDef {
    pub name: Ident,
    pub params: Vec<Param>,
    pub stacks: bool,
    pub kinds: Vec<Ident>,
    pub doc: Option<String>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Modify { place: Vec<Ident>, op: AssignOp, value: Expr, span: Span },
    When { condition: Expr, body: Vec<Stmt>, span: Span },
    On { event: Ident, body: Vec<Stmt>, span: Span },
    Grant { tag: TagRef, span: Span },
    Action(ActionDef),
    Command { verb: Ident, args: Vec<Expr>, span: Span },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    Add,
    Sub,
    Set,
}

#[derive(Clone, Debug)]
pub struct ActionDef {
    pub target: Option<ActionTarget>,
    pub requires: Vec<Expr>,
    /// `cost EXPR`: the action's own price (the step variable `cost`).
    pub cost: Option<Box<Expr>>,
    /// `charge RESOURCE`: the resource a charged action's paid part is kept in.
    pub charge: Option<Ident>,
    /// `sequence N`: its step in the activation's sequence, taken before the move.
    pub sequence: Option<Spanned<i64>>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct ActionTarget {
    pub kind: Ident,
    pub min: Option<Expr>,
    pub max: Option<Expr>,
}

#[derive(Clone, Debug)]
pub struct StatusDef {
    pub name: Ident,
    pub body: Vec<Stmt>,
    pub clears: Vec<Clears>,
    pub lasts: Vec<Lasts>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Clears {
    pub condition: Option<Expr>,
    pub event: Ident,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Lasts {
    pub count: Spanned<i64>,
    pub unit: Ident,
}

#[derive(Clone, Debug)]
pub struct TagRef {
    pub name: Ident,
    pub args: Few<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct ClassDef {
    pub name: Ident,
    pub title: Option<String>,
    pub doc: Option<String>,
    pub ratings: Few<RatingsBlock>,
    pub wields: Few<Ident>,
    pub tags: Vec<TagRef>,
    pub costs: Few<Spanned<i64>>,
    pub promoted: Option<Promoted>,
    pub kit: Vec<Ident>,
    /// Boxed: most classes have no forms, and a form is the size of a few names.
    pub normal: Option<Box<Form>>,
    pub transformed: Option<Box<Form>>,
    pub span: Span,
}

impl ClassDef {
    /// A class with nothing but its name, its title and where it is written: what the parser
    /// fills in entry by entry.
    pub(crate) fn empty(name: Ident, title: Option<String>, span: Span) -> ClassDef {
        ClassDef {
            name,
            title,
            doc: None,
            ratings: Few::new(),
            wields: Few::new(),
            tags: vec![],
            costs: Few::new(),
            promoted: None,
            kit: vec![],
            normal: None,
            transformed: None,
            span,
        }
    }

    /// Its lists at their length (a large file's tree is mostly short lists).
    pub(crate) fn tighten(&mut self) {
        self.wields.shrink_to_fit();
        self.kit.shrink_to_fit();
        self.ratings.shrink_to_fit();
        self.tags.shrink_to_fit();
        self.costs.shrink_to_fit();
    }
}

#[derive(Clone, Debug)]
pub struct RatingsBlock {
    pub entries: Vec<(Ident, Spanned<Literal>)>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Promoted {
    pub from: Option<Ident>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Form {
    pub ratings: Vec<RatingsBlock>,
    pub wields: Vec<Ident>,
    pub tags: Vec<TagRef>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemKind {
    Weapon,
    Accessory,
    Consumable,
}

impl ItemKind {
    pub fn word(self) -> &'static str {
        match self {
            ItemKind::Weapon => "weapon",
            ItemKind::Accessory => "accessory",
            ItemKind::Consumable => "consumable",
        }
    }
}

#[derive(Clone, Debug)]
pub struct ItemDef {
    pub kind: ItemKind,
    pub name: Ident,
    pub title: Option<String>,
    pub doc: Option<String>,
    pub weapon_type: Few<Ident>,
    pub might: Few<Spanned<i64>>,
    pub weight: Few<Spanned<i64>>,
    pub range: Few<RangeSpec>,
    pub tags: Vec<TagRef>,
    pub costs: Few<Spanned<i64>>,
    pub uses: Vec<Vec<Stmt>>,
    pub modifiers: Vec<Stmt>,
    pub span: Span,
}

impl ItemDef {
    /// An item with nothing but its kind, name, title and where it is written.
    pub(crate) fn empty(kind: ItemKind, name: Ident, title: Option<String>, span: Span) -> ItemDef {
        ItemDef {
            kind,
            name,
            title,
            doc: None,
            weapon_type: Few::new(),
            might: Few::new(),
            weight: Few::new(),
            range: Few::new(),
            tags: vec![],
            costs: Few::new(),
            uses: vec![],
            modifiers: vec![],
            span,
        }
    }

    /// Its lists at their length.
    pub(crate) fn tighten(&mut self) {
        self.weapon_type.shrink_to_fit();
        self.might.shrink_to_fit();
        self.weight.shrink_to_fit();
        self.range.shrink_to_fit();
        self.tags.shrink_to_fit();
        self.costs.shrink_to_fit();
        self.uses.shrink_to_fit();
        self.modifiers.shrink_to_fit();
    }
}

#[derive(Clone, Debug)]
pub struct RangeSpec {
    pub min: Expr,
    pub max: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Int(i64),
    Bool(bool),
    Str(String),
    Name(Name),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    Field(Box<Expr>, Ident),
    Index(Box<Expr>, Vec<Expr>),
    Call(Ident, Vec<Expr>),
    /// Dice written in an expression (`roll(2d6)`).
    Die(Box<DieLit>),
    Has(Box<Expr>, Box<TagRef>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A piece that failed to parse; the error was already reported.
    Error,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Or => "or",
            BinaryOp::And => "and",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
        }
    }
    pub fn is_comparison(self) -> bool {
        matches!(self, BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge)
    }
}

/// `scenario Name "Title" { map "..." regions "..." rounds 12 then defender  deploy first defender
/// attacker { ... } defender { ... } }`
#[derive(Clone, Debug)]
pub struct ScenarioDef {
    pub name: Ident,
    pub title: Option<String>,
    pub doc: Option<String>,
    pub maps: Vec<Spanned<String>>,
    pub regions: Vec<Spanned<String>>,
    /// `rounds N` with what happens when they run out (`then attacker|defender|draw`).
    pub rounds: Vec<(Spanned<i64>, Option<Ident>)>,
    pub deploy_first: Vec<Ident>,
    /// `deploy edges rolloff DICE`: the ruleset's dice the home edges are rolled off with.
    pub deploy_edges: Vec<Ident>,
    /// `deploy alternate N`: how many placement units each army is placed in, in turns.
    pub deploy_alternate: Vec<Spanned<i64>>,
    /// `chest [x, y] Item`: what a chest holds in this scenario.
    pub chests: Vec<ScenarioChest>,
    /// `fog` or `fog vision N`: the keyword's span and the vision radius given, if any.
    pub fogs: Vec<(Span, Option<Spanned<i64>>)>,
    /// `advanced courage, ...`: the ruleset's optional rules played.
    pub advanced: Vec<Ident>,
    pub sides: Vec<SideDef>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct ScenarioChest {
    pub at: (Spanned<i64>, Spanned<i64>),
    pub item: Ident,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct SideDef {
    pub side: Ident,
    pub doc: Option<String>,
    pub zones: Vec<Spanned<String>>,
    pub war_chests: Vec<Spanned<i64>>,
    pub units: Vec<(Spanned<i64>, Spanned<i64>)>,
    pub limits: Vec<LimitDef>,
    pub grants: Vec<(Ident, Spanned<i64>)>,
    pub allow_classes: Vec<Ident>,
    pub allow_items: Vec<Ident>,
    pub ban_classes: Vec<Ident>,
    pub ban_items: Vec<Ident>,
    pub wins: Vec<Cond>,
    pub span: Span,
}

/// `at_least 1 with Leader`, `at_most 1/3 ranged`.
#[derive(Clone, Debug)]
pub struct LimitDef {
    pub at_least: bool,
    pub num: Spanned<i64>,
    pub den: Option<Spanned<i64>>,
    /// `points`: weighed by cost, not counted.
    pub points: bool,
    pub selector: Selector,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Selector {
    /// `each unit at_most 1/2 points`: every unit on its own.
    Each(Span),
    With(Ident),
    Class(Ident),
    Wielding(Ident),
    Ranged(Span),
}

/// A victory condition.
#[derive(Clone, Debug)]
pub enum Cond {
    Seize(Spanned<String>),
    RoutAll(Span),
    RoutLeader(Span),
    RoutCount(Spanned<i64>),
    RoutUnit(Spanned<String>),
    Escape(Spanned<i64>, Spanned<String>),
    Defend(Spanned<String>, Spanned<i64>),
    Survive(Spanned<i64>),
    Raze(Spanned<i64>, Spanned<String>),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Not(Box<Cond>, Span),
}

impl Cond {
    pub fn span(&self) -> Span {
        match self {
            Cond::Seize(r) | Cond::RoutUnit(r) => r.span,
            Cond::RoutAll(s) | Cond::RoutLeader(s) | Cond::Not(_, s) => *s,
            Cond::RoutCount(n) | Cond::Survive(n) => n.span,
            Cond::Escape(n, r) | Cond::Raze(n, r) => n.span.to(r.span),
            Cond::Defend(r, n) => r.span.to(n.span),
            Cond::And(a, b) | Cond::Or(a, b) => a.span().to(b.span()),
        }
    }
}

/// `army Name "Title" for Scenario attacker { unit Seth: Paladin { items SilverLance tags Leader } }`
#[derive(Clone, Debug)]
pub struct ArmyDef {
    pub name: Ident,
    pub title: Option<String>,
    pub doc: Option<String>,
    pub scenario: Ident,
    pub side: Ident,
    pub units: Vec<UnitDef>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct UnitDef {
    pub name: Ident,
    pub class: Ident,
    pub items: Vec<Ident>,
    pub tags: Vec<Ident>,
    /// `figures N`: the unit's figures of its class (one where not written).
    pub figures: Option<Spanned<i64>>,
    /// `joins NAME`: the unit of its army it begins the battle joined to (a mixed unit).
    pub joins: Option<Ident>,
    pub span: Span,
}
