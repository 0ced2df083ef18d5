(* A persistent prefix tree mapping strings to values, with prefix
   queries and a functor for any ordered key type. *)

module type ORDERED = sig
  type t
  val compare : t -> t -> int
end

module Make (Key : ORDERED) = struct
  module M = Map.Make (Key)

  type 'a t = { value : 'a option; children : 'a t M.t }

  let empty = { value = None; children = M.empty }

  let is_empty t = t.value = None && M.is_empty t.children

  let rec find keys t =
    match keys with
    | [] -> t.value
    | k :: rest -> (
        match M.find_opt k t.children with
        | None -> None
        | Some child -> find rest child)

  let rec add keys v t =
    match keys with
    | [] -> { t with value = Some v }
    | k :: rest ->
        let child =
          match M.find_opt k t.children with Some c -> c | None -> empty
        in
        { t with children = M.add k (add rest v child) t.children }

  let rec remove keys t =
    match keys with
    | [] -> { t with value = None }
    | k :: rest -> (
        match M.find_opt k t.children with
        | None -> t
        | Some child ->
            let child = remove rest child in
            let children =
              if is_empty child then M.remove k t.children
              else M.add k child t.children
            in
            { t with children })

  let fold f t acc =
    let rec go path t acc =
      let acc =
        match t.value with Some v -> f (List.rev path) v acc | None -> acc
      in
      M.fold (fun k child acc -> go (k :: path) child acc) t.children acc
    in
    go [] t acc
end

module Char_trie = Make (Char)

type stats = { words : int; nodes : int }

exception Empty_key

let explode s = List.init (String.length s) (String.get s)

let implode chars = String.of_seq (List.to_seq chars)

let add_word word v trie =
  if word = "" then raise Empty_key else Char_trie.add (explode word) v trie

let with_prefix prefix trie =
  let rec descend keys (t : 'a Char_trie.t) =
    match keys with
    | [] -> Some t
    | k :: rest -> (
        match Char_trie.M.find_opt k t.children with
        | None -> None
        | Some child -> descend rest child)
  in
  match descend (explode prefix) trie with
  | None -> []
  | Some sub ->
      Char_trie.fold
        (fun path v acc -> (prefix ^ implode path, v) :: acc)
        sub []
      |> List.rev

let () =
  let trie =
    List.fold_left
      (fun t (w, n) -> add_word w n t)
      Char_trie.empty
      [ ("car", 1); ("cart", 2); ("care", 3); ("dog", 4) ]
  in
  with_prefix "car" trie
  |> List.iter (fun (w, n) -> Printf.printf "%s=%d\n" w n)
