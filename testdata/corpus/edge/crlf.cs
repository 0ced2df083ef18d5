using System;
using System.IO;

namespace Legacy.Tools
{
    // Converts files between line-ending conventions.
    public static class LineEndings
    {
        public const string Windows = "\r\n";
        public const string Unix = "\n";

        /// <summary>Counts CRLF and bare LF line ends.</summary>
        public static (int Crlf, int Lf) Count(string text)
        {
            int crlf = 0, lf = 0;
            for (int i = 0; i < text.Length; i++)
            {
                if (text[i] != '\n')
                {
                    continue;
                }

                if (i > 0 && text[i - 1] == '\r')
                {
                    crlf++;
                }
                else
                {
                    lf++;
                }
            }

            return (crlf, lf);
        }

        public static string Normalize(string text, string lineEnding)
        {
            if (lineEnding != Windows && lineEnding != Unix)
            {
                throw new ArgumentException("unsupported line ending", nameof(lineEnding));
            }

            var unix = text.Replace("\r\n", "\n");
            return lineEnding == Unix ? unix : unix.Replace("\n", "\r\n");
        }

        public static void ConvertFile(string path, string lineEnding)
        {
            var text = File.ReadAllText(path);
            File.WriteAllText(path, Normalize(text, lineEnding));
        }
    }
}
