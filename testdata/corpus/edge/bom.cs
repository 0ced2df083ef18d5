using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading.Tasks;

namespace WindowsFormsApp1
{
    /// <summary>
    /// Saved by Visual Studio: UTF-8 with a byte order mark, CRLF line ends.
    /// </summary>
    [Serializable]
    public partial class Customer
    {
        #region Properties

        public int Id { get; set; }

        public string Name { get; set; }

        public string Email { get; set; }

        public DateTime Created { get; set; } = DateTime.Now;

        #endregion

        #region Methods

        public override string ToString()
        {
            return $"{Id}: {Name} <{Email}>";
        }

        public static IEnumerable<Customer> ActiveSince(IEnumerable<Customer> customers, DateTime since)
        {
            return customers
                .Where(c => c.Created >= since)
                .OrderBy(c => c.Name)
                .ToList();
        }

        #endregion
    }
}
