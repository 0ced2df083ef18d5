package com.example.tabs;

import java.util.HashMap;
import java.util.Map;

/**
 * Indented with tabs, as some projects still insist on.
 */
public class WordCounter {

	private final Map<String, Integer> counts = new HashMap<>();

	// Splits on anything that is not a letter or digit.
	public void add(String text) {
		for (String word : text.toLowerCase().split("[^\\p{L}\\p{N}]+")) {
			if (word.isEmpty()) {
				continue;
			}
			counts.merge(word, 1, Integer::sum);
		}
	}

	public int count(String word) {
		return counts.getOrDefault(word.toLowerCase(), 0);
	}

	public Map.Entry<String, Integer> mostCommon() {
		Map.Entry<String, Integer> best = null;
		for (Map.Entry<String, Integer> e : counts.entrySet()) {
			if (best == null || e.getValue() > best.getValue()
					|| (e.getValue().equals(best.getValue()) && e.getKey().compareTo(best.getKey()) < 0)) {
				best = e;
			}
		}
		return best;
	}

	public static void main(String[] args) {
		WordCounter wc = new WordCounter();
		wc.add("the quick brown fox jumps over the lazy dog; the end");
		System.out.println(wc.mostCommon());
	}
}
