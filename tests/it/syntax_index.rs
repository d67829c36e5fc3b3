//! Snapshot tests of the per-file syntax index over small F# texts: every declaration shape,
//! every field-site shape, each degraded-parse indicator, and `.fsi` handling.
//!
//! Each snapshot lists health, declarations (kind, full name, access, range, name range,
//! rendered header), field sites (kind, field, written path, range, uncertainty) and access
//! modifier spans. Ranges are `line:character-line:character`, 0-based, UTF-16.

use expect_test::{Expect, expect};
use fslens::syntax::GrammarKind;
use fslens::syntax::describe::describe_text;

fn check(text: &str, expected: Expect) {
    expected.assert_eq(&describe_text(text, GrammarKind::Implementation));
}

fn check_signature(text: &str, expected: Expect) {
    expected.assert_eq(&describe_text(text, GrammarKind::Signature));
}

#[test]
fn namespace_types_and_record_fields() {
    check(
        r#"namespace Acme.Core

type Point = { X: int; mutable Y: float; [<DefaultValue>] Z: string }
type private Hidden = { H: int }
type Opaque = private { Secret: int }
"#,
        expect![[r#"
            health: clean
            decl namespace Acme.Core [default] 0:0-4:37 name@0:10-0:19 | namespace Acme.Core
            decl record Acme.Core.Point [default] 2:5-2:69 name@2:5-2:10 | Point
            decl record-field Acme.Core.Point.X [default] 2:15-2:21 name@2:15-2:16 | X: int
            decl record-field Acme.Core.Point.Y [default] 2:23-2:39 name@2:31-2:32 | mutable Y: float
            decl record-field Acme.Core.Point.Z [default] 2:41-2:67 name@2:58-2:59 | [<DefaultValue>] Z: string
            decl record Acme.Core.Hidden [private] 3:5-3:32 name@3:13-3:19 | private Hidden
            decl record-field Acme.Core.Hidden.H [default] 3:24-3:30 name@3:24-3:25 | H: int
            decl record Acme.Core.Opaque [default] 4:5-4:37 name@4:5-4:11 | Opaque
            decl record-field Acme.Core.Opaque.Secret [private] 4:24-4:35 name@4:24-4:30 | Secret: int
            access private 3:5-3:12
            access private 4:14-4:21
        "#]],
    );
}

#[test]
fn unions_enums_exceptions_abbreviations_delegates() {
    check(
        r#"module Acme.Shapes

type Shape =
    | Circle of radius: float
    | Square of float
    | Empty
type internal Color = Red = 1 | Green = 2
exception ParseFailed of string
type Names = string list
type Handler = delegate of int -> unit
type Tree = internal | Leaf | Node of Tree * Tree
"#,
        expect![[r#"
            health: clean
            decl module Acme.Shapes [default] 0:0-10:49 name@0:7-0:18 | module Acme.Shapes
            decl union Acme.Shapes.Shape [default] 2:5-5:11 name@2:5-2:10 | Shape
            decl union-case Acme.Shapes.Shape.Circle [default] 3:6-3:29 name@3:6-3:12 | Circle of radius: float
            decl union-field Acme.Shapes.Shape.Circle.radius [default] 3:16-3:29 name@3:16-3:22 | radius: float
            decl union-case Acme.Shapes.Shape.Square [default] 4:6-4:21 name@4:6-4:12 | Square of float
            decl union-case Acme.Shapes.Shape.Empty [default] 5:6-5:11 name@5:6-5:11 | Empty
            decl enum Acme.Shapes.Color [internal] 6:5-6:41 name@6:14-6:19 | internal Color
            decl enum-case Acme.Shapes.Color.Red [default] 6:22-6:29 name@6:22-6:25 | Red = 1
            decl enum-case Acme.Shapes.Color.Green [default] 6:32-6:41 name@6:32-6:37 | Green = 2
            decl exception Acme.Shapes.ParseFailed [default] 7:0-7:31 name@7:10-7:21 | exception ParseFailed of string
            decl abbreviation Acme.Shapes.Names [default] 8:5-8:24 name@8:5-8:10 | Names
            decl delegate Acme.Shapes.Handler [default] 9:5-9:38 name@9:5-9:12 | Handler
            decl union Acme.Shapes.Tree [default] 10:5-10:49 name@10:5-10:9 | Tree
            decl union-case Acme.Shapes.Tree.Leaf [internal] 10:23-10:27 name@10:23-10:27 | Leaf
            decl union-case Acme.Shapes.Tree.Node [internal] 10:30-10:49 name@10:30-10:34 | Node of Tree * Tree
            access internal 6:5-6:13
            access internal 10:12-10:20
        "#]],
    );
}

#[test]
fn classes_interfaces_members_and_extensions() {
    check(
        r#"namespace Acme

type IShape =
    abstract Area: float
    abstract Scale: float -> IShape

type Circle(radius: float) =
    let mutable hits = 0
    [<DefaultValue>] val mutable private cache: float
    new() = Circle(1.0)
    private new(scale: int) = Circle(float scale)
    member _.Radius = radius
    member val Label = "" with get, set
    static member internal Unit() = Circle(1.0)
    member private this.Bump() = hits <- hits + 1
    override _.ToString() = "circle"
    interface IShape with
        member _.Area = radius * radius
        member this.Scale k = Circle(radius * k) :> IShape

type System.String with
    member s.Shout = s.ToUpper()
"#,
        expect![[r#"
            health: clean
            decl namespace Acme [default] 0:0-21:32 name@0:10-0:14 | namespace Acme
            decl interface Acme.IShape [default] 2:5-4:35 name@2:5-2:11 | IShape
            decl abstract-member Acme.IShape.Area [default] 3:4-3:24 name@3:13-3:17 | abstract Area: float
            decl abstract-member Acme.IShape.Scale [default] 4:4-4:35 name@4:13-4:18 | abstract Scale: float -> IShape
            decl class Acme.Circle [default] 6:5-18:58 name@6:5-6:11 | Circle(radius: float)
            decl let Acme.Circle.hits [default] 7:4-7:24 name@7:16-7:20 | let mutable hits
            decl val Acme.Circle.cache [private] 8:4-8:53 name@8:41-8:46 | [<DefaultValue>] val mutable private cache: float
            decl constructor Acme.Circle.new [default] 9:4-9:23 name@9:4-9:7 | new()
            decl constructor Acme.Circle.new [private] 10:4-10:49 name@10:12-10:15 | private new(scale: int)
            decl member Acme.Circle.Radius [default] 11:4-11:28 name@11:13-11:19 | member _.Radius
            decl auto-property Acme.Circle.Label [default] 12:4-12:39 name@12:15-12:20 | member val Label
            decl member Acme.Circle.Unit [internal] 13:4-13:47 name@13:27-13:31 | static member internal Unit()
            decl member Acme.Circle.Bump [private] 14:4-14:49 name@14:24-14:28 | member private this.Bump()
            decl override Acme.Circle.ToString [default] 15:4-15:36 name@15:15-15:23 | override _.ToString()
            decl override Acme.Circle.Area [default] 17:8-17:39 name@17:17-17:21 | member _.Area
            decl override Acme.Circle.Scale [default] 18:8-18:58 name@18:20-18:25 | member this.Scale k
            decl type-extension Acme.System.String [default] 20:5-21:32 name@20:5-20:18 | System.String
            decl member Acme.System.String.Shout [default] 21:4-21:32 name@21:13-21:18 | member s.Shout
            site field-set-mutation hits path=hits 14:33-14:37 uncertain=may-be-local-variable
            site field-read ToUpper path=s.ToUpper 21:23-21:30 uncertain=needs-resolution
            access private 8:33-8:40
            access private 10:4-10:11
            access internal 13:18-13:26
            access private 14:11-14:18
        "#]],
    );
}

#[test]
fn modules_and_let_bindings() {
    check(
        r#"module internal rec Acme.Top

let value = 1
let private helper x = x + 1
let mutable internal counter = 0
[<Literal>]
let Answer = 42
let rec loop n = if n = 0 then 0 else loop (n - 1)

module private Nested =
    let inner = 2
    module Deeper =
        let deepest () =
            let local = 3
            local
"#,
        expect![[r#"
            health: clean
            decl module Acme.Top [internal] 0:0-14:17 name@0:20-0:28 | module internal rec Acme.Top
            decl let Acme.Top.value [default] 2:0-2:13 name@2:4-2:9 | let value
            decl let Acme.Top.helper [private] 3:0-3:28 name@3:12-3:18 | let private helper x
            decl let Acme.Top.counter [internal] 4:0-4:32 name@4:21-4:28 | let mutable internal counter
            decl let Acme.Top.Answer [default] 6:0-6:15 name@6:4-6:10 | let Answer
            decl let Acme.Top.loop [default] 7:0-7:50 name@7:8-7:12 | let rec loop n
            decl module Acme.Top.Nested [private] 9:0-14:17 name@9:15-9:21 | module private Nested
            decl let Acme.Top.Nested.inner [default] 10:4-10:17 name@10:8-10:13 | let inner
            decl module Acme.Top.Nested.Deeper [default] 11:4-14:17 name@11:11-11:17 | module Deeper
            decl let Acme.Top.Nested.Deeper.deepest [default] 12:8-14:17 name@12:12-12:19 | let deepest ()
            access internal 0:7-0:15
            access private 3:4-3:11
            access internal 4:12-4:20
            access private 9:7-9:14
        "#]],
    );
}

#[test]
fn construction_sites() {
    check(
        r#"module M
let p = { X = 1; Y = 2 }
let q = { Point.X = 1; Point.Y = 2 }
let a = {| A = 1; B = "b" |}
let multi =
    { X =
        if true then 1 else 2
      Y = 3 }
"#,
        expect![[r#"
            health: clean
            decl module M [default] 0:0-7:13 name@0:7-0:8 | module M
            decl let M.p [default] 1:0-1:24 name@1:4-1:5 | let p
            decl let M.q [default] 2:0-2:36 name@2:4-2:5 | let q
            decl let M.a [default] 3:0-3:28 name@3:4-3:5 | let a
            decl let M.multi [default] 4:0-7:13 name@4:4-4:9 | let multi
            site field-construction X path=X 1:10-1:11
            site field-construction Y path=Y 1:17-1:18
            site field-construction X path=Point.X 2:16-2:17
            site field-construction Y path=Point.Y 2:29-2:30
            site field-construction A path=A 3:11-3:12
            site field-construction B path=B 3:18-3:19
            site field-construction X path=X 5:6-5:7
            site field-construction Y path=Y 7:6-7:7
        "#]],
    );
}

#[test]
fn copy_and_update_sites_including_nested() {
    check(
        r#"module M
let moved p = { p with X = p.X + 1 }
let deeper o = { o with Inner.Depth = 1; Name = "n" }
let anon a = {| a with C = 2 |}
let fromCall () = { (make ()) with Y = 0 }
"#,
        expect![[r#"
            health: clean
            decl module M [default] 0:0-4:42 name@0:7-0:8 | module M
            decl let M.moved [default] 1:0-1:36 name@1:4-1:9 | let moved p
            decl let M.deeper [default] 2:0-2:53 name@2:4-2:10 | let deeper o
            decl let M.anon [default] 3:0-3:31 name@3:4-3:8 | let anon a
            decl let M.fromCall [default] 4:0-4:42 name@4:4-4:12 | let fromCall ()
            site field-copy-update X path=X 1:23-1:24
            site field-read X path=p.X 1:29-1:30 uncertain=needs-resolution
            site field-copy-update Inner path=Inner.Depth 2:24-2:29 uncertain=qualifier-or-nested-path
            site field-copy-update Depth path=Inner.Depth 2:30-2:35
            site field-copy-update Name path=Name 2:41-2:45
            site field-copy-update C path=C 3:23-3:24
            site field-copy-update Y path=Y 4:35-4:36
        "#]],
    );
}

#[test]
fn mutation_sites() {
    check(
        r#"module M
let f (r: R) =
    r.A <- 3
    r.A.B <- 4
    r.Arr.[0] <- 1
    (get r).C <- 5
let g () =
    let mutable m = 0
    m <- 1
"#,
        expect![[r#"
            health: clean
            decl module M [default] 0:0-8:10 name@0:7-0:8 | module M
            decl let M.f [default] 1:0-5:18 name@1:4-1:5 | let f (r: R)
            decl let M.g [default] 6:0-8:10 name@6:4-6:5 | let g ()
            site field-set-mutation A path=r.A 2:6-2:7
            site field-set-mutation B path=r.A.B 3:8-3:9
            site field-read A path=r.A 3:6-3:7 uncertain=needs-resolution
            site field-read Arr path=r.Arr 4:6-4:9 uncertain=needs-resolution
            site field-set-mutation C path=(get r).C 5:12-5:13
            site field-set-mutation m path=m 8:4-8:5 uncertain=may-be-local-variable
        "#]],
    );
}

#[test]
fn pattern_sites() {
    check(
        r#"module M
let f r =
    match r with
    | { A = a; B = 1 } -> a
    | { Rec.A = a } -> a
let g { A = a } = a
let h = fun { B = b } -> b
let i ({ C = c }: R) = c
let j s =
    match s with
    | Case(field1 = x; field2 = y) -> x
    | Some { D = { E = e } } -> e
    | _ -> 0
"#,
        expect![[r#"
            health: clean
            decl module M [default] 0:0-12:12 name@0:7-0:8 | module M
            decl let M.f [default] 1:0-4:24 name@1:4-1:5 | let f r
            decl let M.g [default] 5:0-5:19 name@5:4-5:5 | let g { A = a }
            decl let M.h [default] 6:0-6:26 name@6:4-6:5 | let h
            decl let M.i [default] 7:0-7:24 name@7:4-7:5 | let i ({ C = c }: R)
            decl let M.j [default] 8:0-12:12 name@8:4-8:5 | let j s
            site field-pattern A path=A 3:8-3:9
            site field-pattern B path=B 3:15-3:16
            site field-pattern A path=Rec.A 4:12-4:13
            site field-pattern A path=A 5:8-5:9
            site field-pattern B path=B 6:14-6:15
            site field-pattern C path=C 7:9-7:10
            site field-pattern field1 path=field1 10:11-10:17
            site field-pattern field2 path=field2 10:23-10:29
            site field-pattern D path=D 11:13-11:14
            site field-pattern E path=E 11:19-11:20
        "#]],
    );
}

#[test]
fn read_candidates() {
    check(
        r#"module M
let a r = r.A
let b r = r.A.B.C
let c f x = (f x).D
let d = List.map _.E xs
let e r = $"{r.F}"
let open' = System.String.Empty
let pat x = match x with Shape.Circle r -> r | _ -> 0.0
"#,
        expect![[r#"
            health: degraded
              misparse infix-bar at 7:45-7:46 region 7:12-7:55
              misparse infix-arrow at 7:49-7:51 region 7:12-7:55
            decl module M [default] 0:0-7:55 name@0:7-0:8 | module M
            decl let M.a [default] 1:0-1:13 name@1:4-1:5 | let a r
            decl let M.b [default] 2:0-2:17 name@2:4-2:5 | let b r
            decl let M.c [default] 3:0-3:19 name@3:4-3:5 | let c f x
            decl let M.d [default] 4:0-4:23 name@4:4-4:5 | let d
            decl let M.e [default] 5:0-5:18 name@5:4-5:5 | let e r
            decl let M.open' [default] 6:0-6:31 name@6:4-6:9 | let open'
            decl let M.pat [default] 7:0-7:55 name@7:4-7:7 | let pat x
            site field-read A path=r.A 1:12-1:13 uncertain=needs-resolution
            site field-read A path=r.A 2:12-2:13 uncertain=needs-resolution
            site field-read B path=B.C 2:14-2:15 uncertain=needs-resolution
            site field-read C path=B.C 2:16-2:17 uncertain=needs-resolution
            site field-read D path=D 3:18-3:19 uncertain=needs-resolution
            site field-read map path=List.map 4:13-4:16 uncertain=needs-resolution
            site field-read E path=_.E 4:19-4:20 uncertain=needs-resolution
            site field-read F path=r.F 5:15-5:16 uncertain=needs-resolution
            site field-read String path=System.String 6:19-6:25 uncertain=needs-resolution
            site field-read Empty path=Empty 6:26-6:31 uncertain=needs-resolution
        "#]],
    );
}

#[test]
fn one_line_match_indicator_makes_later_rules_uncertain() {
    check(
        r#"module M
let f x = match x with { A = a } -> a | { A = 2 } -> 0
let g = function Some v -> v | None -> 0
let h x =
    match x with
    | { B = b } -> b
"#,
        expect![[r#"
            health: degraded
              misparse infix-bar at 1:38-1:39 region 1:10-1:54
              misparse infix-arrow at 1:50-1:52 region 1:10-1:54
              misparse infix-bar at 2:29-2:30 region 2:8-2:40
              misparse infix-arrow at 2:36-2:38 region 2:8-2:40
            decl module M [default] 0:0-5:20 name@0:7-0:8 | module M
            decl let M.f [default] 1:0-1:54 name@1:4-1:5 | let f x
            decl let M.g [default] 2:0-2:40 name@2:4-2:5 | let g
            decl let M.h [default] 3:0-5:20 name@3:4-3:5 | let h x
            site field-pattern A path=A 1:25-1:26 uncertain=inside-suspected-misparse
            site field-construction A path=A 1:42-1:43 uncertain=inside-suspected-misparse
            site field-pattern B path=B 5:8-5:9
        "#]],
    );
}

#[test]
fn dotless_indexing_indicators() {
    check(
        r#"module M
let first (xs: int list) = xs[0]
let set (arr: int array) = arr[0] <- 1
let name x = x.Items[0].Name
"#,
        expect![[r#"
            health: degraded
              misparse adjacent-list-application at 1:29-1:32 region 1:27-1:32
              misparse adjacent-list-application at 2:30-2:33 region 2:27-2:33
              misparse infix-assign at 2:34-2:36 region 2:27-2:38
              misparse adjacent-list-application at 3:20-3:23 region 3:13-3:28
            decl module M [default] 0:0-3:28 name@0:7-0:8 | module M
            decl let M.first [default] 1:0-1:32 name@1:4-1:9 | let first (xs: int list)
            decl let M.set [default] 2:0-2:38 name@2:4-2:7 | let set (arr: int array)
            decl let M.name [default] 3:0-3:28 name@3:4-3:8 | let name x
            site field-read Items path=x.Items 3:15-3:20 uncertain=inside-suspected-misparse
            site field-read Name path=Name 3:24-3:28 uncertain=inside-suspected-misparse
        "#]],
    );
}

#[test]
fn error_regions_flag_sites_inside_them() {
    check(
        r#"module M
let f e =
    match e with
    | Case(
        a = x
        b = y) -> { R = x }
    | _ -> { R = 0 }
let ok = { S = 1 }
"#,
        expect![[r#"
            health: degraded
              error-region 5:10-5:11
            decl module M [default] 0:0-7:18 name@0:7-0:8 | module M
            decl let M.f [default] 1:0-6:20 name@1:4-1:5 | let f e
            decl let M.ok [default] 7:0-7:18 name@7:4-7:6 | let ok
            site field-pattern a path=a 4:8-4:9 uncertain=inside-error-region
            site field-construction R path=R 5:20-5:21 uncertain=inside-error-region
            site field-construction R path=R 6:13-6:14 uncertain=inside-error-region
            site field-construction S path=S 7:11-7:12
        "#]],
    );
}

#[test]
fn root_error_falls_back_to_the_header_line() {
    check(
        r#"module Acme.Broken

let tail = List.
"#,
        expect![[r#"
            health: degraded
              error-region 2:15-2:16
            decl module Acme.Broken [default] 0:0-2:16 name@0:7-0:18 | module Acme.Broken
            decl let Acme.Broken.tail [default] 2:0-2:16 name@2:4-2:8 UNCERTAIN | let tail
        "#]],
    );
}

#[test]
fn signature_files_use_the_signature_grammar() {
    check_signature(
        r#"namespace Acme.Core

type Point = { X: int; Y: int }
type Shape =
    | Circle of radius: float
    | Square

module Geometry =
    val origin: Point
    val private hidden: int
    val move: p: Point -> dx: int -> Point
"#,
        expect![[r#"
            health: clean
            decl namespace Acme.Core [default] 0:0-10:42 name@0:10-0:19 | namespace Acme.Core
            decl record Acme.Core.Point [default] 2:5-2:31 name@2:5-2:10 | Point
            decl record-field Acme.Core.Point.X [default] 2:15-2:21 name@2:15-2:16 | X: int
            decl record-field Acme.Core.Point.Y [default] 2:23-2:29 name@2:23-2:24 | Y: int
            decl union Acme.Core.Shape [default] 3:5-5:12 name@3:5-3:10 | Shape
            decl union-case Acme.Core.Shape.Circle [default] 4:6-4:29 name@4:6-4:12 | Circle of radius: float
            decl union-field Acme.Core.Shape.Circle.radius [default] 4:16-4:29 name@4:16-4:22 | radius: float
            decl union-case Acme.Core.Shape.Square [default] 5:6-5:12 name@5:6-5:12 | Square
            decl module Acme.Core.Geometry [default] 7:0-10:42 name@7:7-7:15 | module Geometry
            decl val Acme.Core.Geometry.origin [default] 8:4-8:21 name@8:8-8:14 | val origin: Point
            decl val Acme.Core.Geometry.hidden [private] 9:4-9:27 name@9:16-9:22 | val private hidden: int
            decl val Acme.Core.Geometry.move [default] 10:4-10:42 name@10:8-10:12 | val move: p: Point -> dx: int -> Point
            access private 9:8-9:15
        "#]],
    );
}

#[test]
fn signature_member_definitions_degrade() {
    check_signature(
        r#"namespace Acme

type Circle =
    new: unit -> Circle
    member Radius: float
    static member Unit: unit -> Circle
"#,
        expect![[r#"
            health: degraded
              error-region 2:0-5:38
            decl namespace Acme [default] 0:0-0:14 name@0:10-0:14 | namespace Acme
            decl class Acme.Circle [default] 2:0-5:38 name@2:5-2:11 UNCERTAIN | type Circle
            decl member Acme.Circle.Radius [default] 4:4-4:24 name@4:11-4:17 UNCERTAIN | member Radius: float
            decl member Acme.Circle.Unit [default] 5:4-5:38 name@5:18-5:22 UNCERTAIN | static member Unit: unit -> Circle
        "#]],
    );
}

#[test]
fn active_pattern_cases_are_declarations_beside_the_pattern() {
    check(
        "module M\nlet (|Even|Odd|) n = if n % 2 = 0 then Even else Odd\nlet (|Digit|_|) c = None\n",
        expect![[r#"
            health: clean
            decl module M [default] 0:0-2:24 name@0:7-0:8 | module M
            decl let M.(|Even|Odd|) [default] 1:0-1:52 name@1:5-1:15 | let (|Even|Odd|) n
            decl let M.(|Digit|_|) [default] 2:0-2:24 name@2:5-2:14 | let (|Digit|_|) c
            decl active-pattern-case M.Even [default] 1:0-1:52 name@1:6-1:10 | let (|Even|Odd|) n
            decl active-pattern-case M.Odd [default] 1:0-1:52 name@1:11-1:14 | let (|Even|Odd|) n
            decl active-pattern-case M.Digit [default] 2:0-2:24 name@2:6-2:11 | let (|Digit|_|) c
        "#]],
    );
}

#[test]
fn positions_are_utf16() {
    check(
        "module M\nlet r = (\"héllo 𝄞\", { Ré = 1 })\n",
        expect![[r#"
            health: clean
            decl module M [default] 0:0-1:32 name@0:7-0:8 | module M
            decl let M.r [default] 1:0-1:32 name@1:4-1:5 | let r
            site field-construction Ré path=Ré 1:23-1:25
        "#]],
    );
}

#[test]
fn access_modifiers_in_comments_and_strings_are_not_spans() {
    check(
        r#"module M
// let private a = 1
(* private *)
let s = "private"
let internal t = """internal"""
"#,
        expect![[r#"
            health: clean
            decl module M [default] 0:0-4:31 name@0:7-0:8 | module M
            decl let M.s [default] 3:0-3:17 name@3:4-3:5 | let s
            decl let M.t [internal] 4:0-4:31 name@4:13-4:14 | let internal t
            access internal 4:4-4:12
        "#]],
    );
}

#[test]
fn hostile_inputs_never_panic() {
    let deep_parens = format!("module M\nlet x = {}1{}\n", "(".repeat(2_000), ")".repeat(2_000));
    let long_pipeline = format!("module M\nlet x = 1{}\n", " |> f".repeat(5_000));
    let inputs: Vec<String> = vec![
        String::new(),
        "// only a comment".to_owned(),
        "module".to_owned(),
        "namespace global\n".to_owned(),
        "let x = {".to_owned(),
        "type T = { A: int; B".to_owned(),
        "(* unterminated".to_owned(),
        "\"unterminated string".to_owned(),
        "module M\nlet s = \"é\u{0}\u{feff}𝄞\"\n".to_owned(),
        String::from_utf8_lossy(&(0u8..=255).cycle().take(4_000).collect::<Vec<u8>>()).into_owned(),
        deep_parens,
        long_pipeline,
    ];
    for input in &inputs {
        for grammar in [GrammarKind::Implementation, GrammarKind::Signature] {
            let _ = describe_text(input, grammar);
        }
    }
}

#[test]
fn signature_declarations_after_a_member_signature_error_are_read_from_the_lines() {
    // The grammar fails on the member signatures of `Builder` (after an attribute on the
    // module), and the error swallows the rest of the file; its `val`s, the operator and the
    // nested module are still declarations (uncertain), under the modules their indentation
    // puts them in.
    check_signature(
        r#"namespace Acme

[<RequireQualifiedAccess>]
module Steps =
    val first: int -> int

    [<Class>]
    type Builder =
        /// Starts.
        new: unit -> Builder
        /// Nothing.
        member Zero: unit -> int
        member Bind: source: int * binder: (int -> int) -> int

    val builder: Builder

    val second: int -> int
    val inline private (>>=): int -> (int -> int) -> int

    module Inner =
        val ``third one``: int
"#,
        expect![[r#"
            health: degraded
              error-region 9:11-9:11
              error-region 17:23-17:28
              error-region 20:8-20:26
              misparse keyword-as-identifier at 11:8-11:14 region 10:0-20:30
            decl namespace Acme [default] 0:0-20:30 name@0:10-0:14 | namespace Acme
            decl module Acme.Steps [default] 2:0-20:30 name@3:7-3:12 | [<RequireQualifiedAccess>] module Steps
            decl val Acme.Steps.first [default] 4:4-4:25 name@4:8-4:13 | val first: int -> int
            decl class Acme.Steps.Builder [default] 7:9-20:30 name@7:9-7:16 | Builder
            decl constructor Acme.Steps.Builder.new [default] 9:8-20:30 name@9:8-9:11 UNCERTAIN | new: unit -> Builder member Zero: unit -> int member Bind: source: int * binder:…
            decl val Acme.Steps.builder [default] 14:4-14:24 name@14:8-14:15 UNCERTAIN | val builder: Builder
            decl val Acme.Steps.second [default] 16:4-16:26 name@16:8-16:14 UNCERTAIN | val second: int -> int
            decl val Acme.Steps.(>>=) [private] 17:4-17:56 name@17:24-17:27 UNCERTAIN | val inline private (>>=): int -> (int -> int) -> int
            decl module Acme.Steps.Inner [default] 19:4-20:30 name@19:11-19:16 UNCERTAIN | module Inner
            decl val Acme.Steps.Inner.``third one`` [default] 20:8-20:30 name@20:12-20:25 UNCERTAIN | val ``third one``: int
        "#]],
    );
}

/// A module whose `val` the signature grammar read, then a type extension whose member
/// signature it cannot read: the module is the tree's, and the lines recovered under it are
/// its declarations (before: the tree's module was skipped as known and nothing indented under
/// it was read, so the extension and its member were missing).
#[test]
fn a_signature_type_extension_after_a_val_is_recovered_under_its_module() {
    check_signature(
        r#"namespace Loops

module AsyncLoops =
    val countdownFrom : int -> int

    type AsyncBuilder with
      member For : seq:int list * action:(int -> Async<unit>) -> Async<unit>
"#,
        expect![[r#"
            health: degraded
              error-region 2:0-6:76
            decl namespace Loops [default] 0:0-0:15 name@0:10-0:15 | namespace Loops
            decl module AsyncLoops [default] 2:0-6:76 name@2:7-2:17 UNCERTAIN | module AsyncLoops
            decl val AsyncLoops.countdownFrom [default] 3:4-3:34 name@3:8-3:21 UNCERTAIN | val countdownFrom : int -> int
            decl type-extension AsyncLoops.AsyncBuilder [default] 5:4-6:76 name@5:9-5:21 UNCERTAIN | type AsyncBuilder with
            decl member AsyncLoops.AsyncBuilder.For [default] 6:6-6:76 name@6:13-6:16 UNCERTAIN | member For : seq:int list * action:(int -> Async<unit>) -> Async<unit>
        "#]],
    );
}

/// A type named qualified in an extension (`type Microsoft.FSharp.Control.AsyncBuilder with`)
/// inside an error region is a type extension's line, named as the tree names it (before: the
/// dotted name was no name, and the extension and its member were missing).
#[test]
fn a_qualified_type_extension_in_an_error_region_is_recovered() {
    check(
        r#"namespace Loops

module AsyncLoops =
    let countdownFrom start = start

    let quoted (name: string) = $$"""{"name": "{{name}}"}"""
    let twice start = [ start; start ]

    type Microsoft.FSharp.Control.AsyncBuilder with
        member x.For(source: int list, body: int -> Async<unit>) =
            x.Zero()
"#,
        expect![[r#"
            health: degraded
              error-region 5:32-5:60
              error-region 8:4-8:8
              misparse keyword-as-identifier at 9:8-9:14 region 8:47-10:20
            decl namespace Loops [default] 0:0-10:20 name@0:10-0:15 | namespace Loops
            decl module Loops.AsyncLoops [default] 2:0-8:46 name@2:7-2:17 | module AsyncLoops
            decl let Loops.AsyncLoops.countdownFrom [default] 3:4-3:35 name@3:8-3:21 | let countdownFrom start
            decl let Loops.AsyncLoops.quoted [default] 5:4-8:46 name@5:8-5:14 UNCERTAIN | let quoted (name: string)
            decl let Loops.AsyncLoops.twice [default] 6:4-6:38 name@6:8-6:13 UNCERTAIN | let twice start = [ start; start ]
            site field-read FSharp path=Microsoft.FSharp 8:19-8:25 uncertain=inside-error-region
            site field-read Control path=Control.AsyncBuilder 8:26-8:33 uncertain=inside-error-region
            site field-read AsyncBuilder path=Control.AsyncBuilder 8:34-8:46 uncertain=inside-error-region
            site field-read For path=x.For 9:17-9:20 uncertain=inside-suspected-misparse
            site field-read Zero path=x.Zero 10:14-10:18 uncertain=inside-suspected-misparse
        "#]],
    );
}

/// `fixtures/directives/Steps.fs`: an indented `#if` among a module's bindings, and one opened
/// inside a type extension's members and closed after the next declaration
/// (FSharp.Control.AsyncSeq's `AsyncSeq.fs`): valid F#, which tree-sitter-fsharp 0.3.12 fails
/// at to the end of the module, reading what follows from lines, uncertain. The text with its
/// directive lines blanked parses, and that tree is the one read: clean, every container
/// the compiler's.
#[test]
fn directives_among_declarations_keep_the_containers_after_them() {
    check(
        include_str!("../../fixtures/directives/Steps.fs"),
        expect![[r#"
            health: clean
            decl namespace Steps [default] 0:0-57:9 name@0:10-0:15 | namespace Steps
            decl module Steps.Flow [default] 9:0-57:9 name@10:7-10:11 | [<AutoOpen>] module Flow
            decl let Steps.Flow.countdownFrom [default] 12:4-12:57 name@12:8-12:21 | let countdownFrom (start: int)
            decl let Steps.Flow.twice [default] 15:4-15:45 name@15:8-15:13 | let twice (start: int)
            decl type-extension Steps.Flow.Microsoft.FSharp.Control.Async [default] 18:9-22:77 name@18:9-18:39 | Microsoft.FSharp.Control.Async
            decl member Steps.Flow.Microsoft.FSharp.Control.Async.map [default] 19:6-19:62 name@19:20-19:23 | static member map f a
            decl member Steps.Flow.Microsoft.FSharp.Control.Async.delay [internal] 22:6-22:77 name@22:29-22:34 | static member internal delay (a: int) : Async<int>
            decl type-extension Steps.Flow.System.String [default] 24:9-28:86 name@24:9-24:22 | System.String
            decl member Steps.Flow.System.String.Shout [default] 25:6-28:86 name@25:15-25:20 | member s.Shout = s.ToUpper() #endif
            decl class Steps.Flow.Runner [internal] 29:9-43:49 name@29:18-29:24 | internal Runner<'T>(items: 'T list, f: 'T -> Async<unit>)
            decl let Steps.Flow.Runner.disposed [default] 30:8-30:36 name@30:20-30:28 | let mutable disposed
            decl member Steps.Flow.Runner.RunAll [default] 32:8-40:22 name@32:17-32:23 | member _.RunAll()
            decl override Steps.Flow.Runner.Dispose [default] 43:12-43:49 name@43:21-43:28 | member _.Dispose()
            decl class Steps.Flow.Counter [default] 45:9-51:42 name@45:9-45:16 | Counter<'T>(items: 'T list)
            decl let Steps.Flow.Counter.countLoop [default] 46:8-49:51 name@46:16-46:25 | let rec countLoop acc rest
            decl member Steps.Flow.Counter.Count [default] 51:8-51:42 name@51:17-51:22 | member _.Count
            decl let Steps.Flow.runAll [default] 53:4-57:9 name@53:8-53:14 | let runAll (f: 'T -> Async<unit>) (items: 'T list)
            site field-read Bind path=async.Bind 19:36-19:40 uncertain=needs-resolution
            site field-read Return path=async.Return 19:55-19:61 uncertain=needs-resolution
            site field-read ToUpper path=s.ToUpper 25:25-25:32 uncertain=needs-resolution
            site field-set-mutation disposed path=disposed 43:33-43:41 uncertain=may-be-local-variable
            site field-read RunAll path=runner.RunAll 56:27-56:33 uncertain=needs-resolution
            access internal 22:20-22:28
            access internal 29:9-29:17
        "#]],
    );
}

#[test]
fn inline_il_keeps_the_containers_after_it() {
    check(
        r#"namespace Tags

#nowarn "42"

module private Raw =
    let inline retype<'a, 'b> (a : 'a) : 'b =
#if !FABLE_COMPILER
        (# "" a : 'b #)
#else
        unbox<'b> a
#endif

type Tag =

    static member inline mark<[<Measure>]'m> (x : int) : int<'m> = Raw.retype x
    static member inline mark<[<Measure>]'m> (x : float) : float<'m> = Raw.retype x
    static member inline strip<[<Measure>]'m> (x : int<'m>) : int = Raw.retype x

[<AutoOpen>]
module Ops =
    let inline private tagWith< ^T, ^a, ^b when (^T or ^a or ^b) : (static member mark : ^a -> ^b)> (x : ^a) =
        ((^T or ^a or ^b) : (static member mark : ^a -> ^b) x)
    let inline (~%) (x : ^a) : ^b = tagWith<Tag, ^a, ^b> x
"#,
        expect![[r#"
            health: clean
            decl namespace Tags [default] 0:0-22:58 name@0:10-0:14 | namespace Tags
            decl module Tags.Raw [private] 4:0-10:6 name@4:15-4:18 | module private Raw
            decl let Tags.Raw.retype [default] 5:4-10:6 name@5:15-5:21 | let inline retype<'a, 'b> (a : 'a) : 'b
            decl class Tags.Tag [default] 12:5-16:80 name@12:5-12:8 | Tag
            decl member Tags.Tag.mark [default] 14:4-14:79 name@14:25-14:29 | static member inline mark<[<Measure>]'m> (x : int) : int<'m>
            decl member Tags.Tag.mark [default] 15:4-15:83 name@15:25-15:29 | static member inline mark<[<Measure>]'m> (x : float) : float<'m>
            decl member Tags.Tag.strip [default] 16:4-16:80 name@16:25-16:30 | static member inline strip<[<Measure>]'m> (x : int<'m>) : int
            decl module Tags.Ops [default] 18:0-22:58 name@19:7-19:10 | [<AutoOpen>] module Ops
            decl let Tags.Ops.tagWith [private] 20:4-21:62 name@20:23-20:30 | let inline private tagWith< ^T, ^a, ^b when (^T or ^a or ^b) : (static member ma…
            decl let Tags.Ops.(~%) [default] 22:4-22:58 name@22:16-22:18 | let inline (~%) (x : ^a) : ^b
            site field-read retype path=Raw.retype 14:71-14:77 uncertain=needs-resolution
            site field-read retype path=Raw.retype 15:75-15:81 uncertain=needs-resolution
            site field-read retype path=Raw.retype 16:72-16:78 uncertain=needs-resolution
            access private 4:7-4:14
            access private 20:15-20:22
        "#]],
    );
}

/// Inline IL over two lines is left to the grammar, which fails to the end of the file: the
/// lines after it are read by the offside rule (a type at column 0 is no member of the module
/// before it) and a `namespace` line starts a namespace of its own (fixtures/inline-il).
#[test]
fn declarations_after_an_unread_region_follow_the_offside_rule_and_namespace_lines() {
    check(
        r#"namespace Widening

#nowarn "42"

module private Conv =
    // Inline IL over two lines: the grammar still cannot read it, nor anything after it.
    let inline toInt64 (a : int) : int64 =
        (# "conv.i8" a
            : int64 #)

type Widener =
    static member widen (x : int) : int64 = Conv.toInt64 x

namespace Narrowing

type Narrower =
    static member narrow (x : int64) : int = int x
"#,
        expect![[r#"
            health: degraded
              error-region 7:8-7:12
              error-region 7:19-17:0
            decl namespace Widening [default] 0:0-17:0 name@0:10-0:18 | namespace Widening
            decl module Widening.Conv [private] 4:0-17:0 name@4:15-4:19 | module private Conv
            decl let Widening.Conv.toInt64 [default] 6:4-17:0 name@6:15-6:22 UNCERTAIN | let inline toInt64 (a : int) : int64
            decl class Widening.Widener [default] 10:0-11:58 name@10:5-10:12 UNCERTAIN | type Widener
            decl member Widening.Widener.widen [default] 11:4-11:58 name@11:18-11:23 UNCERTAIN | static member widen (x : int) : int64 = Conv.toInt64 x
            decl namespace Narrowing [default] 13:0-16:50 name@13:10-13:19 UNCERTAIN | namespace Narrowing
            decl class Narrowing.Narrower [default] 15:0-16:50 name@15:5-15:13 UNCERTAIN | type Narrower
            decl member Narrowing.Narrower.narrow [default] 16:4-16:50 name@16:18-16:24 UNCERTAIN | static member narrow (x : int64) : int = int x
            site field-read i8 path=conv.i8 7:17-7:19 uncertain=inside-error-region
            access private 4:7-4:14
        "#]],
    );
}

/// A type declared without `=` (tree-sitter-fsharp's `type_declaration`): units of measure
/// and a signature's abstract type are declarations of kind `type`, named and contained as
/// other types are. Before, none of them was in the index.
#[test]
fn types_declared_without_an_equals_sign_are_declarations() {
    check(
        r#"namespace Measures

/// Kilometres.
[<Measure>]
type km

[<Measure>] type mi
[<Measure>] type internal h

module Speed =
    [<Measure>] type kmh = km / h
    let limit = 100.0<km/h>
"#,
        expect![[r#"
            health: clean
            decl namespace Measures [default] 0:0-11:27 name@0:10-0:18 | namespace Measures
            decl type Measures.km [default] 4:5-4:7 name@4:5-4:7 | km
            decl type Measures.mi [default] 6:17-6:19 name@6:17-6:19 | mi
            decl type Measures.h [internal] 7:17-7:27 name@7:26-7:27 | internal h
            decl module Measures.Speed [default] 9:0-11:27 name@9:7-9:12 | module Speed
            decl abbreviation Measures.Speed.kmh [default] 10:21-10:33 name@10:21-10:24 | kmh
            decl let Measures.Speed.limit [default] 11:4-11:27 name@11:8-11:13 | let limit
            access internal 7:17-7:25
        "#]],
    );
    check_signature(
        r#"module Measures.Route

/// An abstract type.
type Route

type private Hidden<'T>

val ofLegs: float<km> list -> Route
"#,
        expect![[r#"
            health: clean
            decl module Measures.Route [default] 0:0-7:35 name@0:7-0:21 | module Measures.Route
            decl type Measures.Route.Route [default] 3:5-3:10 name@3:5-3:10 | Route
            decl type Measures.Route.Hidden [private] 5:5-5:23 name@5:13-5:19 | private Hidden<'T>
            decl val Measures.Route.ofLegs [default] 7:0-7:35 name@7:4-7:10 | val ofLegs: float<km> list -> Route
            access private 5:5-5:12
        "#]],
    );
}
