;; The marker search of the trajectory line scanner (util/line-scan.ts), in
;; WebAssembly SIMD: 16 bytes a step whatever the bytes are, so its speed does
;; not depend on the data (Buffer.indexOf of "usage" runs a memchr on `"`,
;; which is on every few bytes of JSON). Assembled by scripts/build-wasm.ts
;; (the wabt package) into dist/util/marker-scan.wasm at `npm ci`/`npm run build`.
;;
;; Memory (laid out by util/marker-scan.ts):
;;   [0, 128)       the needles: 2 records of 64 bytes: len, then four (offset, byte)
;;                  pairs (i32), then the needle's bytes (at most 28) at +36. A
;;                  candidate is where the four bytes match (the needle's first two
;;                  and last two); it is then compared whole.
;;   [ev, ev+8*max) the events found: (position, newlines before it) as two i32.
;;   [base, base+n) the data; then 64 pad bytes `{`; before base, 16 bytes that are
;;                  either guard bytes `}` or the data's own earlier bytes (a search in
;;                  place from inside a buffer): either way only the line end checks of
;;                  the first step and the line-start check of a needle (`$allNl`) read
;;                  them, and the caller checks the first line itself.
;;
;; An event is a position where the caller must look:
;;   - a `\n` whose line may not be `{...}`: the byte before it (or before its
;;     `\r`) is not `}`, or the byte after it is not `{`; with $allNl set, every `\n`
;;     (and then a needle right after `\n{`, a line's own start, is not an event);
;;   - a NUL byte;
;;   - the start of a needle.
;; Events come in position order, each with the number of `\n` in [from, position).
(module
  (memory (export "memory") 80)
  ;; Newlines in [from, resume) of the last call, and where the next call must start (n when done).
  (global $nl (export "nl") (mut i32) (i32.const 0))
  (global $resume (export "resume") (mut i32) (i32.const 0))
  (global $needles (export "needles") (mut i32) (i32.const 0))
  ;; 1: every line end is an event (classify mode reads every line), not only those of lines that may not be `{...}`.
  (global $allNl (export "allNl") (mut i32) (i32.const 0))

  (func $matches (param $p i32) (param $rec i32) (result i32)
    (local $k i32) (local $len i32)
    (local.set $len (i32.load (local.get $rec)))
    (block $no
      (loop $cmp
        (br_if 1 (i32.ge_u (local.get $k) (local.get $len)))
        (br_if $no
          (i32.ne
            (i32.load8_u (i32.add (local.get $p) (local.get $k)))
            (i32.load8_u (i32.add (i32.add (local.get $rec) (i32.const 36)) (local.get $k)))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $cmp)))
    (if (i32.lt_u (local.get $k) (local.get $len)) (then (return (i32.const 0))))
    (i32.const 1))

;; Scans [base+from, base+n) in steps of 16 bytes; writes events at `ev` (at most
  ;; `maxEv`; it stops early, at a step boundary, when fewer than 80 places are left)
  ;; and returns their number; sets $resume and $nl. One or two needles (with one,
  ;; needle 1 is needle 0 again); no needle holds a `{`, so the pad bytes after the
  ;; data never make an event and a step may run past the data's end.
  (func (export "scan")
    (param $base i32) (param $n i32) (param $from i32) (param $ev i32) (param $maxEv i32) (result i32)
    (local $i i32) (local $p i32) (local $q i32) (local $v v128) (local $v1 v128)
    (local $nlm i32) (local $m i32) (local $cand i32) (local $bit i32)
    (local $nls i32) (local $evn i32) (local $out i32) (local $rec1 i32)
    (local $o02 i32) (local $o03 i32) (local $o12 i32) (local $o13 i32)
    (local $s00 v128) (local $s01 v128) (local $s02 v128) (local $s03 v128)
    (local $s10 v128) (local $s11 v128) (local $s12 v128) (local $s13 v128)
    ;; The four bytes that pick each needle's candidates, out of the loop: the first
    ;; two (offsets 0 and 1) and the last two (offsets in the record).
    (local.set $rec1 (select (i32.const 64) (i32.const 0) (i32.gt_u (global.get $needles) (i32.const 1))))
    (local.set $s00 (i8x16.splat (i32.load offset=8 (i32.const 0))))
    (local.set $s01 (i8x16.splat (i32.load offset=16 (i32.const 0))))
    (local.set $o02 (i32.load offset=20 (i32.const 0)))
    (local.set $s02 (i8x16.splat (i32.load offset=24 (i32.const 0))))
    (local.set $o03 (i32.load offset=28 (i32.const 0)))
    (local.set $s03 (i8x16.splat (i32.load offset=32 (i32.const 0))))
    (local.set $s10 (i8x16.splat (i32.load offset=8 (local.get $rec1))))
    (local.set $s11 (i8x16.splat (i32.load offset=16 (local.get $rec1))))
    (local.set $o12 (i32.load offset=20 (local.get $rec1)))
    (local.set $s12 (i8x16.splat (i32.load offset=24 (local.get $rec1))))
    (local.set $o13 (i32.load offset=28 (local.get $rec1)))
    (local.set $s13 (i8x16.splat (i32.load offset=32 (local.get $rec1))))
    (local.set $i (local.get $from))
    (block $done
      (loop $blocks
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (br_if $done (i32.gt_u (i32.add (local.get $evn) (i32.const 80)) (local.get $maxEv)))
        (local.set $p (i32.add (local.get $base) (local.get $i)))
        (local.set $v (v128.load (local.get $p)))
        (local.set $v1 (v128.load offset=1 (local.get $p)))
        (local.set $nlm (i8x16.bitmask (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x0a)))))
        ;; Candidates: a NUL byte, or the four bytes of a needle.
        (local.set $cand
          (i8x16.bitmask
            (v128.or
              (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0)))
              (v128.or
                (v128.and
                  (v128.and (i8x16.eq (local.get $v) (local.get $s00)) (i8x16.eq (local.get $v1) (local.get $s01)))
                  (v128.and
                    (i8x16.eq (v128.load (i32.add (local.get $p) (local.get $o02))) (local.get $s02))
                    (i8x16.eq (v128.load (i32.add (local.get $p) (local.get $o03))) (local.get $s03))))
                (v128.and
                  (v128.and (i8x16.eq (local.get $v) (local.get $s10)) (i8x16.eq (local.get $v1) (local.get $s11)))
                  (v128.and
                    (i8x16.eq (v128.load (i32.add (local.get $p) (local.get $o12))) (local.get $s12))
                    (i8x16.eq (v128.load (i32.add (local.get $p) (local.get $o13))) (local.get $s13))))))))
        (if (i32.or (local.get $nlm) (local.get $cand))
          (then
            ;; Line ends whose line may not be `{...}`: not `}` (or `}\r`) before, or not `{` after
            ;; (with $allNl, every line end).
            (local.set $m (i32.const 0))
            (if (local.get $nlm)
              (then
                (local.set $m
                  (if (result i32) (global.get $allNl)
                    (then (local.get $nlm))
                    (else
                  (i32.and
                    (local.get $nlm)
                    (i32.xor
                      (i8x16.bitmask
                        (v128.and
                          (v128.or
                            (i8x16.eq (v128.load (i32.sub (local.get $p) (i32.const 1))) (i8x16.splat (i32.const 0x7d)))
                            (v128.and
                              (i8x16.eq (v128.load (i32.sub (local.get $p) (i32.const 1))) (i8x16.splat (i32.const 0x0d)))
                              (i8x16.eq (v128.load (i32.sub (local.get $p) (i32.const 2))) (i8x16.splat (i32.const 0x7d)))))
                          (i8x16.eq (local.get $v1) (i8x16.splat (i32.const 0x7b)))))
                      (i32.const 0xffff))))))))
            ;; Candidates that are a NUL byte or a whole needle.
            (block $cd
              (loop $c
                (br_if $cd (i32.eqz (local.get $cand)))
                (local.set $bit (i32.ctz (local.get $cand)))
                (local.set $q (i32.add (local.get $p) (local.get $bit)))
                ;; With $allNl, a needle right after a line's `{` is the line's own start, not an event.
                (if
                  (i32.or
                    (i32.eqz (i32.load8_u (local.get $q)))
                    (i32.and
                      (i32.or (call $matches (local.get $q) (i32.const 0)) (call $matches (local.get $q) (local.get $rec1)))
                      (i32.eqz
                        (if (result i32) (global.get $allNl)
                          (then (i32.eq (i32.load16_u (i32.sub (local.get $q) (i32.const 2))) (i32.const 0x7b0a)))
                          (else (i32.const 0))))))
                  (then (local.set $m (i32.or (local.get $m) (i32.shl (i32.const 1) (local.get $bit))))))
                (local.set $cand (i32.and (local.get $cand) (i32.sub (local.get $cand) (i32.const 1))))
                (br $c)))
            ;; Events, in order, with the newlines before each.
            (block $ed
              (loop $e
                (br_if $ed (i32.eqz (local.get $m)))
                (local.set $bit (i32.ctz (local.get $m)))
                (local.set $out (i32.add (local.get $ev) (i32.shl (local.get $evn) (i32.const 3))))
                (i32.store (local.get $out) (i32.add (local.get $i) (local.get $bit)))
                (i32.store offset=4 (local.get $out)
                  (i32.add (local.get $nls)
                    (i32.popcnt
                      (i32.and (local.get $nlm) (i32.sub (i32.shl (i32.const 1) (local.get $bit)) (i32.const 1))))))
                (local.set $evn (i32.add (local.get $evn) (i32.const 1)))
                (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
                (br $e)))
            (local.set $nls (i32.add (local.get $nls) (i32.popcnt (local.get $nlm))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $blocks)))
    (global.set $resume (if (result i32) (i32.gt_u (local.get $i) (local.get $n)) (then (local.get $n)) (else (local.get $i))))
    (global.set $nl (local.get $nls))
    (local.get $evn))
)
