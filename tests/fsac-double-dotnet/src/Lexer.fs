/// The symbol at a position as FSAC finds it (FsAutoComplete.Core's `Lexer.findLongIdents`, a
/// `Fuzzy` lookup): the line is run through the F# compiler's own tokenizer and the token that
/// touches the cursor is taken, an identifier first, else an operator. So an operator is a
/// symbol like any other, at its declaration (`let (>>=) …`, `let inline internal (+=) …`) and
/// at an infix use (`x >>= f`, `sb += "<"`), as are active patterns (`(|Even|Odd|)`), type
/// parameters (`'T`, `^T`) and operators that start with a dot (`.>>`). Every position request
/// of the double (hover, definition, references, rename, highlights, …) starts here, as every
/// one of FSAC's does.
module FsacDouble.Lexer

open FSharp.Compiler.Tokenization

type private Kind =
    | Ident
    | Operator
    | TypeParameter
    | StaticTypeParameter
    | ActivePattern
    | Keyword
    | Punctuation
    | Other

/// A token after the fix-ups below; `Last` is the column of its last character.
type private Piece = { Kind: Kind; Token: FSharpTokenInfo; Last: int }

let private piece kind (token: FSharpTokenInfo) =
    { Kind = kind; Token = token; Last = token.LeftColumn + token.FullMatchedLength - 1 }

/// The tokens of one line, as FSAC tokenizes it (no defines: a line is read alone).
let private tokens (line: string) =
    let tokenizer = FSharpSourceTokenizer([], Some "/tmp.fsx", None).CreateLineTokenizer line
    let rec scan (state: FSharpTokenizerLexState) (acc: FSharpTokenInfo list) =
        match tokenizer.ScanToken state with
        | Some token, next -> scan next (token :: acc)
        | None, _ -> List.rev acc
    scan FSharpTokenizerLexState.Initial []

let private kindOf (token: FSharpTokenInfo) =
    if token.CharClass = FSharpTokenCharKind.Operator then Operator
    elif token.CharClass = FSharpTokenCharKind.Identifier then Ident
    elif token.ColorClass = FSharpTokenColorKind.Keyword then Keyword
    elif token.ColorClass = FSharpTokenColorKind.Punctuation then Punctuation
    else Other

/// What a token starts: a type parameter (`'`), a statically resolved one (`^` alone), an
/// active pattern (`(|`), or nothing special.
let private starts (line: string) (token: FSharpTokenInfo) =
    if token.Tag = FSharpTokenTag.QUOTE then Some TypeParameter
    elif token.Tag = FSharpTokenTag.INFIX_AT_HAT_OP && token.FullMatchedLength = 1 && line[token.LeftColumn] = '^' then
        Some StaticTypeParameter
    elif token.Tag = FSharpTokenTag.LPAREN && token.FullMatchedLength = 1 && line.Length > token.LeftColumn + 1 && line[token.LeftColumn + 1] = '|' then
        Some ActivePattern
    else None

/// The line's pieces, last first. The tokenizer gives a multi-character operator as one token
/// per character, each as long as the whole (`>>=`: three tokens of length 3): the first is
/// kept, the ones it covers dropped. A quote or a lone `^` joins the identifier after it; `(|`
/// joins the cases and bars after it into one identifier; a dot followed by an operator is an
/// operator (`.>>`); an operator or active pattern closed by `)` is listed again at the `)`.
let private pieces (line: string) =
    let step (acc: Piece list, last: Piece option) (token: FSharpTokenInfo) =
        match last with
        | Some dot when dot.Kind = Punctuation && token.CharClass = FSharpTokenCharKind.Operator && token.LeftColumn <= dot.Last ->
            acc, Some { dot with Kind = Operator; Token = { dot.Token with Tag = token.Tag; RightColumn = token.RightColumn } }
        | Some previous when token.LeftColumn <= previous.Last -> acc, last
        | Some pattern when
            pattern.Kind = ActivePattern
            && (token.Tag = FSharpTokenTag.BAR || token.Tag = FSharpTokenTag.IDENT || token.Tag = FSharpTokenTag.UNDERSCORE)
            ->
            let joined =
                { pattern.Token with
                    Tag = FSharpTokenTag.IDENT
                    RightColumn = token.RightColumn
                    FullMatchedLength = pattern.Token.FullMatchedLength + token.FullMatchedLength }
            acc, Some { pattern with Token = joined; Last = pattern.Last + token.FullMatchedLength }
        | _ ->
            match starts line token with
            | Some kind -> acc, Some(piece kind token)
            | None ->
                let next =
                    match last with
                    | Some prefix when (prefix.Kind = TypeParameter || prefix.Kind = StaticTypeParameter) && token.CharClass = FSharpTokenCharKind.Identifier ->
                        piece prefix.Kind { token with LeftColumn = token.LeftColumn - 1; FullMatchedLength = token.FullMatchedLength + 1 }
                    | Some pattern when pattern.Kind = ActivePattern && token.Tag = FSharpTokenTag.RPAREN -> piece Ident pattern.Token
                    | Some op when op.Kind = Operator && token.Tag = FSharpTokenTag.RPAREN -> piece Operator op.Token
                    | Some prefix when prefix.Kind = StaticTypeParameter -> { Kind = Operator; Token = token; Last = token.RightColumn - 1 }
                    | _ -> piece (kindOf token) token
                next :: acc, Some next
    tokens line |> List.fold step ([], None) |> fst

/// FSAC's `findLongIdents`: for the cursor at `column` (0-based) of `line`, the column just
/// after the symbol there and its name split at dots (the names FCS's `GetSymbolUseAtLocation`,
/// `GetToolTip` and `GetDeclarationLocation` take). An identifier touching the cursor wins over
/// an operator touching it; `None` when neither does.
let findLongIdents (column: int) (line: string) : (int * string list) option =
    if line = "" then None
    else
        try
            let touching = pieces line |> List.filter (fun p -> p.Token.LeftColumn <= column && p.Last + 1 >= column)
            touching
            |> List.tryFind (fun p -> p.Kind = Ident || p.Kind = TypeParameter || p.Kind = StaticTypeParameter || p.Kind = Keyword)
            |> Option.orElseWith (fun () -> touching |> List.tryFind (fun p -> p.Kind = Operator))
            |> Option.bind (fun p ->
                match line.Substring(p.Token.LeftColumn, p.Token.FullMatchedLength) with
                | "" -> None
                | text -> Some(p.Last + 1, List.ofArray (text.Split '.')))
        with _ -> None
