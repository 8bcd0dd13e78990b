;; JSON string escaping of UTF-8 text, 16 bytes at a time (src/wasm/json-escape.ts says how it is used).
;;
;; escape(from, length, to) writes, at `to`, the bytes JSON.stringify writes between the quotes of a string whose
;; UTF-8 is the `length` bytes at `from`, and returns where its output ends. The input must be valid UTF-8: bytes from
;; 0x80 on are copied as they are, which is what JSON.stringify does with well-formed text. The output needs room for
;; 6 bytes a byte and 16 more, and up to 16 bytes past the input are read (and written over later): src/wasm/json-escape.ts
;; puts the output right after the input, so both stay inside the memory it grows to.
(module
  (memory (export "memory") 1)

  ;; What comes after the backslash for each byte: 0x00 nothing (the byte is written as it is), 0xff a \u00XX escape,
  ;; anything else that letter (\t \n \r \b \f, \" and \\).
  (data (i32.const 0)
    "\ff\ff\ff\ff\ff\ff\ff\ff\62\74\6e\ff\66\72\ff\ff"
    "\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff"
    "\00\00\22\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\5c\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00")

  ;; The hex digit of the low 4 bits of `value`, in lower case as JSON.stringify writes it.
  (func $hex (param $value i32) (result i32)
    (local $digit i32)
    (local.set $digit (i32.and (local.get $value) (i32.const 15)))
    (select
      (i32.add (local.get $digit) (i32.const 48))
      (i32.add (local.get $digit) (i32.const 87))
      (i32.lt_u (local.get $digit) (i32.const 10))))

  ;; Writes the escape of `byte` (one the table marks) at `to`; returns where it ends.
  (func $escaped (param $byte i32) (param $to i32) (result i32)
    (local $letter i32)
    (local.set $letter (i32.load8_u (local.get $byte)))
    (if (result i32) (i32.eq (local.get $letter) (i32.const 255))
      (then
        ;; "\u00" (little-endian), then the two hex digits.
        (i32.store (local.get $to) (i32.const 0x3030755c))
        (i32.store8 offset=4 (local.get $to) (call $hex (i32.shr_u (local.get $byte) (i32.const 4))))
        (i32.store8 offset=5 (local.get $to) (call $hex (local.get $byte)))
        (i32.add (local.get $to) (i32.const 6)))
      (else
        ;; A backslash, then the letter.
        (i32.store16 (local.get $to) (i32.or (i32.shl (local.get $letter) (i32.const 8)) (i32.const 92)))
        (i32.add (local.get $to) (i32.const 2)))))

  (func (export "escape") (param $from i32) (param $length i32) (param $to i32) (result i32)
    (local $end i32)
    (local $byte i32)
    (local $block v128)
    (local $mask i32)
    (local $at i32)
    (local $done i32)
    (local.set $end (i32.add (local.get $from) (local.get $length)))
    ;; 16 bytes at a time while there are 16.
    (block $tail
      (loop $blocks
        (br_if $tail (i32.gt_u (i32.add (local.get $from) (i32.const 16)) (local.get $end)))
        (local.set $block (v128.load (local.get $from)))
        (v128.store (local.get $to) (local.get $block))
        ;; One bit a byte that needs escaping.
        (local.set $mask
          (i8x16.bitmask
            (v128.or
              (i8x16.lt_u (local.get $block) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32))
              (v128.or
                (i8x16.eq (local.get $block) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34))
                (i8x16.eq (local.get $block) (v128.const i8x16 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92))))))
        (if (local.get $mask)
          (then
            ;; Each byte to escape in turn: the plain bytes before it are copied 16 at a time (those past them are
            ;; written over next), then its escape. Text with many quotes (JSON lines) stays a block at a time.
            (local.set $done (i32.const 0))
            (loop $escapes
              (local.set $at (i32.ctz (local.get $mask)))
              (v128.store (local.get $to) (v128.load (i32.add (local.get $from) (local.get $done))))
              (local.set $to
                (call $escaped
                  (i32.load8_u (i32.add (local.get $from) (local.get $at)))
                  (i32.add (local.get $to) (i32.sub (local.get $at) (local.get $done)))))
              (local.set $done (i32.add (local.get $at) (i32.const 1)))
              (local.set $mask (i32.and (local.get $mask) (i32.sub (local.get $mask) (i32.const 1))))
              (br_if $escapes (local.get $mask)))
            ;; The plain bytes after the last escape.
            (v128.store (local.get $to) (v128.load (i32.add (local.get $from) (local.get $done))))
            (local.set $to (i32.sub (i32.add (local.get $to) (i32.const 16)) (local.get $done))))
          (else (local.set $to (i32.add (local.get $to) (i32.const 16)))))
        (local.set $from (i32.add (local.get $from) (i32.const 16)))
        (br $blocks)))
    ;; The last bytes, one at a time.
    (block $end_reached
      (loop $bytes
        (br_if $end_reached (i32.ge_u (local.get $from) (local.get $end)))
        (local.set $byte (i32.load8_u (local.get $from)))
        (if (i32.load8_u (local.get $byte))
          (then (local.set $to (call $escaped (local.get $byte) (local.get $to))))
          (else
            (i32.store8 (local.get $to) (local.get $byte))
            (local.set $to (i32.add (local.get $to) (i32.const 1)))))
        (local.set $from (i32.add (local.get $from) (i32.const 1)))
        (br $bytes)))
    (local.get $to)))
