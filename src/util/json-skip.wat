;; The JSON value check of the trajectory readers (extractors/trajectory/json-bytes.ts,
;; `skipValue`), in WebAssembly: the same grammar, the same answer, for a value
;; that lies in the memory of a marker search (util/marker-scan.ts), where the
;; line scanner read it. A reader walks a usage line member by member and passes
;; every value it does not read to the check, which proves it valid JSON
;; without building it; the large ones (a message's content) are most of the
;; bytes of those lines. Assembled by scripts/build-wasm.ts (the wabt package)
;; into dist/util/json-skip.wasm at `npm ci`/`npm run build`.
;;
;; `skip(p, end, depth)`: the value at memory[p] (no leading blank), within
;; memory[p, end). Returns the address just after it, or -1 when it is not one
;; valid JSON value there, or when a container in it would sit at a depth of
;; 64 or more (`depth` is that of the value itself; json-bytes.ts then gives up
;; as its own check does). Strings: `"`, then bytes other than `"`, `\` and the
;; control bytes 0x00-0x1f, or the escapes \" \\ \/ \b \f \n \r \t \uXXXX; numbers:
;; -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?; true, false, null; blanks
;; between tokens: space, tab, CR, LF. Nothing at or after `end` is read, except
;; by a 16-byte load that ends at or before it.
(module
  (import "search" "memory" (memory 1))

  (func $blank (param $c i32) (result i32)
    (i32.or
      (i32.or (i32.eq (local.get $c) (i32.const 0x20)) (i32.eq (local.get $c) (i32.const 0x09)))
      (i32.or (i32.eq (local.get $c) (i32.const 0x0d)) (i32.eq (local.get $c) (i32.const 0x0a)))))

  ;; The first address at or after $i that holds no blank (or $end).
  (func $ws (param $i i32) (param $end i32) (result i32)
    (block $out
      (loop $l
        (br_if $out (i32.ge_u (local.get $i) (local.get $end)))
        (br_if $out (i32.eqz (call $blank (i32.load8_u (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.get $i))

  (func $hex (param $c i32) (result i32)
    (i32.or
      (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10))
      (i32.lt_u (i32.sub (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x61)) (i32.const 6))))

  (func $digit (param $c i32) (result i32)
    (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10)))

  ;; The first address at or after $i that holds no digit (or $end).
  (func $digits (param $i i32) (param $end i32) (result i32)
    (block $out
      (loop $l
        (br_if $out (i32.ge_u (local.get $i) (local.get $end)))
        (br_if $out (i32.eqz (call $digit (i32.load8_u (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.get $i))

  ;; The string at $i (a `"`): the address after its closing quote, or -1.
  (func $string (param $i i32) (param $end i32) (result i32)
    (local $v v128) (local $m i32) (local $c i32) (local $e i32)
    (local.set $i (i32.add (local.get $i) (i32.const 1)))
    (loop $l
      ;; 16 plain bytes a step while 16 bytes are left before $end.
      (block $slow
        (loop $fast
          (br_if $slow (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $end)))
          (local.set $v (v128.load (local.get $i)))
          (local.set $m
            (i8x16.bitmask
              (v128.or
                (v128.or
                  (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x22)))
                  (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x5c))))
                (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 0x20))))))
          (if (local.get $m)
            (then
              (local.set $i (i32.add (local.get $i) (i32.ctz (local.get $m))))
              (br $slow)))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br $fast)))
      (if (i32.ge_u (local.get $i) (local.get $end)) (then (return (i32.const -1))))
      (local.set $c (i32.load8_u (local.get $i)))
      (if (i32.eq (local.get $c) (i32.const 0x22)) (then (return (i32.add (local.get $i) (i32.const 1)))))
      (if (i32.lt_u (local.get $c) (i32.const 0x20)) (then (return (i32.const -1))))
      (if (i32.ne (local.get $c) (i32.const 0x5c))
        (then
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $l)))
      ;; An escape.
      (if (i32.ge_u (i32.add (local.get $i) (i32.const 1)) (local.get $end)) (then (return (i32.const -1))))
      (local.set $e (i32.load8_u offset=1 (local.get $i)))
      (if (i32.eq (local.get $e) (i32.const 0x75))
        (then
          (if (i32.ge_u (i32.add (local.get $i) (i32.const 5)) (local.get $end)) (then (return (i32.const -1))))
          (if
            (i32.eqz
              (i32.and
                (i32.and (call $hex (i32.load8_u offset=2 (local.get $i))) (call $hex (i32.load8_u offset=3 (local.get $i))))
                (i32.and (call $hex (i32.load8_u offset=4 (local.get $i))) (call $hex (i32.load8_u offset=5 (local.get $i))))))
            (then (return (i32.const -1))))
          (local.set $i (i32.add (local.get $i) (i32.const 6)))
          (br $l)))
      (if
        (i32.or
          (i32.or
            (i32.or (i32.eq (local.get $e) (i32.const 0x22)) (i32.eq (local.get $e) (i32.const 0x5c)))
            (i32.or (i32.eq (local.get $e) (i32.const 0x2f)) (i32.eq (local.get $e) (i32.const 0x62))))
          (i32.or
            (i32.or (i32.eq (local.get $e) (i32.const 0x66)) (i32.eq (local.get $e) (i32.const 0x6e)))
            (i32.or (i32.eq (local.get $e) (i32.const 0x72)) (i32.eq (local.get $e) (i32.const 0x74)))))
        (then
          (local.set $i (i32.add (local.get $i) (i32.const 2)))
          (br $l))))
    (i32.const -1))

  ;; The number at $i (a `-` or a digit): the address after it, or -1.
  (func $number (param $i i32) (param $end i32) (result i32)
    (local $c i32) (local $j i32)
    (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x2d)) (then (local.set $i (i32.add (local.get $i) (i32.const 1)))))
    (if (i32.ge_u (local.get $i) (local.get $end)) (then (return (i32.const -1))))
    (local.set $c (i32.load8_u (local.get $i)))
    (if (i32.eq (local.get $c) (i32.const 0x30))
      (then (local.set $i (i32.add (local.get $i) (i32.const 1))))
      (else
        (if (i32.lt_u (i32.sub (local.get $c) (i32.const 0x31)) (i32.const 9))
          (then (local.set $i (call $digits (i32.add (local.get $i) (i32.const 1)) (local.get $end))))
          (else (return (i32.const -1))))))
    (if (i32.lt_u (local.get $i) (local.get $end))
      (then
        (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x2e))
          (then
            (local.set $j (call $digits (i32.add (local.get $i) (i32.const 1)) (local.get $end)))
            (if (i32.eq (local.get $j) (i32.add (local.get $i) (i32.const 1))) (then (return (i32.const -1))))
            (local.set $i (local.get $j))))))
    (if (i32.lt_u (local.get $i) (local.get $end))
      (then
        (local.set $c (i32.load8_u (local.get $i)))
        (if (i32.eq (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x65))
          (then
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (if (i32.lt_u (local.get $i) (local.get $end))
              (then
                (local.set $c (i32.load8_u (local.get $i)))
                (if (i32.or (i32.eq (local.get $c) (i32.const 0x2b)) (i32.eq (local.get $c) (i32.const 0x2d)))
                  (then (local.set $i (i32.add (local.get $i) (i32.const 1)))))))
            (local.set $j (call $digits (local.get $i) (local.get $end)))
            (if (i32.eq (local.get $j) (local.get $i)) (then (return (i32.const -1))))
            (local.set $i (local.get $j))))))
    (local.get $i))

  ;; The literal whose $n bytes are those of $word (little-endian) at $i: the address after it, or -1.
  (func $literal (param $i i32) (param $end i32) (param $word i64) (param $n i32) (result i32)
    (local $k i32)
    (if (i32.gt_u (i32.add (local.get $i) (local.get $n)) (local.get $end)) (then (return (i32.const -1))))
    (block $no
      (loop $l
        (br_if $no
          (i32.ne
            (i32.load8_u (i32.add (local.get $i) (local.get $k)))
            (i32.wrap_i64 (i64.and (i64.shr_u (local.get $word) (i64.extend_i32_u (i32.shl (local.get $k) (i32.const 3)))) (i64.const 0xff)))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br_if $l (i32.lt_u (local.get $k) (local.get $n)))
        (return (i32.add (local.get $i) (local.get $n)))))
    (i32.const -1))

  (func (export "skip") (param $i i32) (param $end i32) (param $depth i32) (result i32)
    (local $c i32)
    ;; The open containers, innermost at bit 0: 1 for an object, 0 for an array; $open of them.
    (local $kinds i64) (local $open i32)
    ;; 1 when an object's member comes next: its key and `:` before its value.
    (local $key i32)
    (loop $value
      (if (local.get $key)
        (then
          (local.set $key (i32.const 0))
          (if (i32.ge_u (local.get $i) (local.get $end)) (then (return (i32.const -1))))
          (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 0x22)) (then (return (i32.const -1))))
          (local.set $i (call $string (local.get $i) (local.get $end)))
          (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
          (local.set $i (call $ws (local.get $i) (local.get $end)))
          (if (i32.ge_u (local.get $i) (local.get $end)) (then (return (i32.const -1))))
          (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 0x3a)) (then (return (i32.const -1))))
          (local.set $i (call $ws (i32.add (local.get $i) (i32.const 1)) (local.get $end)))))
      ;; A value at $i.
      (if (i32.ge_u (local.get $i) (local.get $end)) (then (return (i32.const -1))))
      (local.set $c (i32.load8_u (local.get $i)))
      (block $after
        (if (i32.eq (local.get $c) (i32.const 0x22))
          (then
            (local.set $i (call $string (local.get $i) (local.get $end)))
            (br_if $after (i32.ge_s (local.get $i) (i32.const 0)))
            (return (i32.const -1))))
        (if (i32.eq (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x7b))
          (then
            ;; `{` (0x7b) or `[` (0x5b), opened at depth $depth + $open.
            (if (i32.ge_u (i32.add (local.get $depth) (local.get $open)) (i32.const 64)) (then (return (i32.const -1))))
            (local.set $kinds
              (i64.or (i64.shl (local.get $kinds) (i64.const 1)) (i64.extend_i32_u (i32.eq (local.get $c) (i32.const 0x7b)))))
            (local.set $open (i32.add (local.get $open) (i32.const 1)))
            (local.set $i (call $ws (i32.add (local.get $i) (i32.const 1)) (local.get $end)))
            ;; Empty: the close of this container right away (`}` = `{` + 2, `]` = `[` + 2).
            (if (i32.lt_u (local.get $i) (local.get $end))
              (then
                (if (i32.eq (i32.load8_u (local.get $i)) (i32.add (local.get $c) (i32.const 2)))
                  (then
                    (local.set $kinds (i64.shr_u (local.get $kinds) (i64.const 1)))
                    (local.set $open (i32.sub (local.get $open) (i32.const 1)))
                    (local.set $i (i32.add (local.get $i) (i32.const 1)))
                    (br $after)))))
            (local.set $key (i32.eq (local.get $c) (i32.const 0x7b)))
            (br $value)))
        (if (i32.eq (local.get $c) (i32.const 0x74))
          (then
            (local.set $i (call $literal (local.get $i) (local.get $end) (i64.const 0x65757274) (i32.const 4)))
            (br_if $after (i32.ge_s (local.get $i) (i32.const 0)))
            (return (i32.const -1))))
        (if (i32.eq (local.get $c) (i32.const 0x66))
          (then
            (local.set $i (call $literal (local.get $i) (local.get $end) (i64.const 0x65736c6166) (i32.const 5)))
            (br_if $after (i32.ge_s (local.get $i) (i32.const 0)))
            (return (i32.const -1))))
        (if (i32.eq (local.get $c) (i32.const 0x6e))
          (then
            (local.set $i (call $literal (local.get $i) (local.get $end) (i64.const 0x6c6c756e) (i32.const 4)))
            (br_if $after (i32.ge_s (local.get $i) (i32.const 0)))
            (return (i32.const -1))))
        (if (i32.or (i32.eq (local.get $c) (i32.const 0x2d)) (call $digit (local.get $c)))
          (then
            (local.set $i (call $number (local.get $i) (local.get $end)))
            (br_if $after (i32.ge_s (local.get $i) (i32.const 0)))
            (return (i32.const -1))))
        (return (i32.const -1)))
      ;; After a value: done at the top; else `,` and the next value (or member), or the container's close.
      (loop $close
        (if (i32.eqz (local.get $open)) (then (return (local.get $i))))
        (local.set $i (call $ws (local.get $i) (local.get $end)))
        (if (i32.ge_u (local.get $i) (local.get $end)) (then (return (i32.const -1))))
        (local.set $c (i32.load8_u (local.get $i)))
        (if (i32.eq (local.get $c) (i32.const 0x2c))
          (then
            (local.set $i (call $ws (i32.add (local.get $i) (i32.const 1)) (local.get $end)))
            (local.set $key (i32.wrap_i64 (i64.and (local.get $kinds) (i64.const 1))))
            (br $value)))
        ;; The close of the innermost container: `}` for an object, `]` for an array.
        (if
          (i32.ne (local.get $c)
            (select (i32.const 0x7d) (i32.const 0x5d) (i32.wrap_i64 (i64.and (local.get $kinds) (i64.const 1)))))
          (then (return (i32.const -1))))
        (local.set $kinds (i64.shr_u (local.get $kinds) (i64.const 1)))
        (local.set $open (i32.sub (local.get $open) (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $close)))
    (i32.const -1))
)
